"""A screen type's `look` in the web preview (`coordrun serve`), in a real headless Chromium.

Run by Tests/EndToEndTests/PreviewBrowserTests.swift:
    preview_look_test.py PREVIEW_URL SCREENSHOTS
PREVIEW_URL serves Tests/Browser/look_app.lua. Checks the look's title, text, fields and rows; that each
output's control enters its payload (a secure field, stars, a stepper, a switch, a button), each tap landing
in the session's history as the step it is; that no input is shown as a dump of its data; and that axe-core
finds no serious or moderate violation. Prints one line a check; exits 1 at the first that fails.
"""
import os

import chromium
from selenium.webdriver.common.by import By

url, shots, driver, wait, check = chromium.page_test(1000)


def revision():
    return chromium.revision(driver)


def history():
    return [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#history li")]


def step(click, expected):
    before = revision()
    driver.execute_script("arguments[0].click()", click())
    wait.until(lambda d: revision() > before)
    check(any(expected in line for line in history()), "the tap is the step %s (%s)" % (expected, history()[-1:]))


try:
    driver.get(url)
    wait.until(lambda d: revision() >= 0)
    check(driver.find_element(By.ID, "screen-title").text == "Send money", "the look's title")
    check(driver.find_element(By.ID, "screen-text").text == "Choose who gets it.", "the look's text")
    labels = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#inputs dt")]
    values = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#inputs dd")]
    check(labels == ["balance", "From"] and values == ["120.5", "Savings"], "the look's fields, a record by its name (%s %s)" % (labels, values))
    rows = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".action.item")]
    check(rows == ["Anna\nN26", "Bo\nING"], "the items as rows with their subtitles (%s)" % rows)
    check(not any("{" in v for v in values), "no input is a dump of its data")
    check(driver.find_element(By.CSS_SELECTOR, ".value[data-output=pin] input").get_attribute("type") == "password", "pin's control is secure")
    check(all(not b.text.startswith('"') for b in driver.find_elements(By.CSS_SELECTOR, ".value[data-output=pin] .examples button")),
          "and its examples are not shown")
    driver.save_screenshot(os.path.join(shots, "look.png"))
    step(lambda: driver.find_elements(By.CSS_SELECTOR, ".value[data-output=rating] .star")[2], 'tap("rating", (3))')
    plus = lambda: driver.find_element(By.CSS_SELECTOR, ".value[data-output=count] button[aria-label='one more']")
    driver.execute_script("arguments[0].click()", plus())
    step(lambda: driver.find_element(By.CSS_SELECTOR, ".value[data-output=count] .send"), 'tap("count", (3))')
    step(lambda: driver.find_element(By.CSS_SELECTOR, ".value[data-output=alerts] input[role=switch]"), 'tap("alerts", (false))')
    step(lambda: driver.find_element(By.CSS_SELECTOR, ".value[data-output=confirm] button"), 'tap("confirm", ("yes"))')
    found = chromium.serious_violations(driver)
    check(not found, "axe-core finds no serious or moderate violation (%s)" % found)
finally:
    driver.quit()
