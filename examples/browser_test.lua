-- Flow tests of examples/browser.lua: ./scripts/coordrun test examples
app "browser.lua"

test("the share sheet shows right after the menu goes, in the same step", function()
  tap("menu")
  tap("share")
  expect.stack { "Browser", "Share" }
  expect.screen("Share", { url = "https://mozilla.org" })
end)

test("a settings link reaches the running browser over its sheets, its tabs kept", function()
  tap("go", "https://example.org")
  tap("tabTray")
  tap("newTab")
  expect.screen("Browser", { url = "about:home", tabs = 2 })
  tap("menu")
  tap("share")
  open("firefox://deep-link?url=/settings/privacy")
  expect.stack { "Browser", "Settings", "SettingsSection" }
  back()
  tap("done")
  expect.screen("Browser", { url = "about:home", tabs = 2 })
end)

test("the tab tray opens from a link and keeps the tabs", function()
  tap("go", "https://example.org")
  tap("menu")
  open("firefox://deep-link?url=/tabs")
  expect.stack { "Browser", "TabTray" }
  expect.screen("TabTray", { tabs = { "https://example.org" } })
  tap("done")
  expect.screen("Browser", { url = "https://example.org", tabs = 1 })
end)

test("a link with a url loads it in the browser", function()
  open("firefox://open-url?url=https%3A%2F%2Fexample.org%2Fnews")
  expect.screen("Browser", { url = "https://example.org/news" })
end)

test("closing private tabs reaches the browser of every window", { idiom = "pad" }, function()
  tap("private")
  openWindow()
  expect.equal(windows(), { 1, 2 })
  expect.screen("Browser", { private = false })
  tap("private")
  tap("menu")
  tap("closePrivate")
  expect.screen("Browser", { private = false })
  window(1)
  expect.screen("Browser", { private = false })
  closeWindow(2)
  expect.equal(windows(), { 1 })
end)
