"""The headless Chromium the browser tests drive (Debian's chromium and chromium-driver, through Selenium),
and the one way they report a check. Imported by the tests in this folder."""
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service


def start(width=1280, height=900, extra=()):
    """A headless Chromium of that window size (CHROMIUM and CHROMEDRIVER may name other binaries)."""
    options = Options()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=%d,%d" % (width, height)) + tuple(extra):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)


def page_test(height):
    """A test of the preview's page, run as `TEST PREVIEW_URL SHOTS`: the URL, the screenshots' folder (made),
    a headless Chromium 1280 px wide and `height` high, a wait of at most 60 s, and ``checker``'s check."""
    from selenium.webdriver.support.ui import WebDriverWait
    url, shots = sys.argv[1:3]
    os.makedirs(shots, exist_ok=True)
    driver = start(1280, height)
    return url, shots, driver, WebDriverWait(driver, 60), checker(driver)


def revision(driver):
    """The revision of the state the preview's page shows (-1 before its first)."""
    from selenium.webdriver.common.by import By
    return int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-revision"))


def checker(driver):
    """check(condition, message): prints `ok: message`, or `FAILED: message` and ends the test (status 1)."""
    def check(condition, message):
        if not condition:
            print("FAILED: " + message)
            driver.quit()
            sys.exit(1)
        print("ok: " + message)
    return check


def serious_violations(driver):
    """axe-core's serious, critical and moderate violations on the page, as [id, impact, nodes] (axe-core
    from PyPI's selenium-axe-python, which scripts/ensure-deps --test installs)."""
    import selenium_axe_python
    with open(os.path.join(os.path.dirname(selenium_axe_python.__file__), "axe-core", "axe.min.js")) as f:
        driver.execute_script(f.read())
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, { resultTypes: ['violations'] }).then(r => done(r.violations.map(v => [v.id, v.impact, v.nodes.length])));")
    return [v for v in found if v[1] in ("serious", "critical", "moderate")]
