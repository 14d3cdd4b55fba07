"""A storyboard (`coordrun storyboard`) opened from its file in a real headless Chromium.

Run by Tests/EndToEndTests/StoryboardCommandTests.swift:
    storyboard_test.py INDEX_HTML SCREENSHOTS
It opens the page from file:// (no server), clicks an arrow of the flow graph and a screen of it, and checks
that each leads to what it joins; it takes a screenshot at a phone's width, a desktop's and in the dark
palette, and checks the page fits a phone's width and that the dark palette is another. Prints one line a
check; exits 1 at the first that fails.
"""
import os
import sys

import chromium
from selenium.webdriver.common.by import By

index, shots = sys.argv[1:3]
os.makedirs(shots, exist_ok=True)
driver = chromium.start(1280, 900)

check = chromium.checker(driver)


try:
    driver.get("file://" + os.path.abspath(index))
    check(driver.execute_script("return document.querySelectorAll('article.card').length") > 0, "the cards are there")
    check(driver.execute_script("return document.querySelectorAll('script').length") == 0, "the page runs no script")
    # An arrow of the graph: its link leads to its transition in the list, which names the screens it joins.
    edge = driver.find_element(By.CSS_SELECTOR, "svg g.edge a")
    target = driver.execute_script("return arguments[0].href.baseVal", edge).split("#")[-1]
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", edge)
    check(driver.execute_script("return location.hash") == "#" + target, "an arrow leads to its transition (#%s)" % target)
    joined = driver.execute_script("return document.querySelector(':target').querySelectorAll('a').length")
    check(joined == 2, "the transition links the two screens it joins")
    # A screen of the graph: its link leads to its screen type's cards.
    node = driver.find_element(By.CSS_SELECTOR, "svg g.node a")
    target = driver.execute_script("return arguments[0].href.baseVal", node).split("#")[-1]
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", node)
    check(driver.execute_script("return location.hash") == "#" + target, "a screen leads to its cards (#%s)" % target)
    check(driver.execute_script("return document.querySelector(':target').querySelectorAll('article.card').length") > 0,
          "its screen type's cards are there")
    driver.save_screenshot(os.path.join(shots, "storyboard-desktop.png"))
    driver.set_window_size(390, 900)
    width = driver.execute_script("return document.documentElement.scrollWidth")
    check(width <= 390, "the page fits a phone's width (%d px)" % width)
    driver.save_screenshot(os.path.join(shots, "storyboard-phone.png"))
    light = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    dark = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    check(light != dark, "the dark palette is another (%s, %s)" % (light, dark))
    driver.save_screenshot(os.path.join(shots, "storyboard-dark.png"))
finally:
    driver.quit()
