"""The web preview (`coordrun serve`) as the people who cannot or do not use a mouse, a wide screen or a
light palette meet it, in a real headless Chromium.

Run by Tests/EndToEndTests/PreviewBrowserTests.swift:
    preview_a11y_test.py PREVIEW_URL SCREENSHOTS
It runs axe-core (from PyPI's selenium-axe-python, which scripts/ensure-deps --test installs) over the page
and accepts no serious or moderate violation; takes a step by the keyboard and checks that the focus is on
the new screen; at a phone's width (390 px) checks the page is one column with every control on screen; as a
phone shows it (Chromium's mobile emulation: no scrollbar) at 360, 375, 390, 393, 412 and 430 px, checks that
the panels stack under the device, at its full width, and that every control is on screen; in the dark
palette checks the colours change; and takes screenshots (phone, phone emulated at 390 px, desktop, dark).
Prints one line a check; exits 1 at the first that fails.
"""
import os

import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

url, shots, driver, wait, check = chromium.page_test(900)


def violations():
    return chromium.serious_violations(driver)


def revision():
    return chromium.revision(driver)


try:
    driver.get(url)
    wait.until(lambda d: revision() >= 0)
    found = violations()
    check(not found, "axe-core finds no serious or moderate violation (%s)" % found)
    # A step by the keyboard: Tab to the first action, Enter; the focus is then on the new screen.
    before = revision()
    first = driver.find_element(By.CSS_SELECTOR, "#actions button, #actions input")
    driver.execute_script("arguments[0].focus()", first)
    if first.tag_name == "input":
        first = driver.find_element(By.CSS_SELECTOR, "#actions .send")
        driver.execute_script("arguments[0].focus()", first)
    first.send_keys(Keys.ENTER)
    wait.until(lambda d: revision() > before)
    focused = driver.execute_script("const e = document.activeElement; return e.id || e.tagName")
    check(focused in ("screen-title",) or driver.execute_script("return document.getElementById('alert-actions').contains(document.activeElement)"),
          "after a step the focus is on the new screen (%s)" % focused)
    check(not violations(), "and the next screen has no serious or moderate violation either")
    driver.save_screenshot(os.path.join(shots, "preview-desktop.png"))
    driver.set_window_size(390, 844)
    width = driver.execute_script("return document.documentElement.scrollWidth")
    check(width <= 390, "at 390 px the page is no wider (%d px)" % width)
    offscreen = driver.execute_script(
        "return [...document.querySelectorAll('header button, header a, header input')]"
        ".filter(e => { const r = e.getBoundingClientRect(); return r.right > innerWidth || r.left < 0; }).map(e => e.id)")
    check(not offscreen, "every header control is on screen at 390 px (%s)" % offscreen)
    columns = driver.execute_script("return getComputedStyle(document.getElementById('side')).gridTemplateColumns.split(' ').length")
    check(columns == 1, "the panels are one column at 390 px")
    driver.save_screenshot(os.path.join(shots, "preview-phone.png"))
    # As a phone shows it: no scrollbar to take room and make the panels wrap.
    for phone in (360, 375, 390, 393, 412, 430):
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": phone, "height": 844, "deviceScaleFactor": 3, "mobile": True})
        layout = driver.execute_script(
            "const box = id => document.getElementById(id).getBoundingClientRect();"
            "const controls = [...document.querySelectorAll('button, input, select, a, [tabindex]')]"
            "  .filter(e => e.offsetParent !== null && e.getBoundingClientRect().width > 0);"
            "return { width: document.documentElement.scrollWidth, device: box('device'), side: box('side'),"
            "  offscreen: controls.filter(e => { const r = e.getBoundingClientRect(); return r.left < -0.5 || r.right > innerWidth + 0.5; })"
            "    .map(e => e.id || e.textContent.trim().slice(0, 20) || e.tagName) }")
        check(layout["width"] <= phone, "at %d px on a phone the page is no wider (%d px)" % (phone, layout["width"]))
        check(layout["side"]["top"] >= layout["device"]["bottom"] - 0.5,
              "at %d px on a phone the panels are under the device, not beside it" % phone)
        check(layout["side"]["width"] >= phone - 40, "at %d px on a phone the panels take the width (%d px)" % (phone, layout["side"]["width"]))
        check(not layout["offscreen"], "at %d px on a phone every control is on screen (%s)" % (phone, layout["offscreen"]))
        if phone == 390:
            driver.save_screenshot(os.path.join(shots, "preview-phone-emulated.png"))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.set_window_size(1280, 900)
    light = driver.execute_script("return getComputedStyle(document.querySelector('section')).backgroundColor")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    dark = driver.execute_script("return getComputedStyle(document.querySelector('section')).backgroundColor")
    check(light != dark, "the dark palette applies (%s, %s)" % (light, dark))
    found = violations()
    check(not found, "the dark palette has no serious or moderate violation, contrast included (%s)" % found)
    driver.save_screenshot(os.path.join(shots, "preview-dark.png"))
finally:
    driver.quit()
