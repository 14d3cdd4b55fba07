-- A web browser, navigating as Firefox for iOS does: the browser flow keeps its tabs, a menu sheet over it,
-- settings presented from the menu, a share sheet shown right after the menu goes, the tab tray as a
-- full-screen cover, and links dispatched the way production browsers dispatch them: to the running
-- Browser flow (from = "Browser"), whatever is presented above it, its tabs kept. On an iPad it runs in
-- several windows (--idiom pad, openWindow()): "close private tabs" reaches every window's browser.
-- Run: ./scripts/coordrun --idiom pad examples/browser.lua
--   (menu, then share; open("firefox://deep-link?url=/settings/privacy") from anywhere; private, openWindow(),
--    private, menu, closePrivate: both windows' private tabs close)
-- Check its links: ./scripts/coordrun routes examples/browser.lua
local flow = require "coordinator"

flow.screen "Browser" {
  inputs = { "url", "tabs", "private" },
  outputs = { "menu", "tabTray", go = "value", private = { when = function(s) return not s.private end } },
  examples = { go = { "https://example.org" } },
  render = function(s)
    return ("%s (%d %s)%s"):format(s.url, s.tabs, s.tabs == 1 and "tab" or "tabs", s.private and ", private" or "")
  end,
}
flow.screen "Menu" { title = "Menu", outputs = { "settings", "share", "closePrivate", "close" } }
flow.screen "Share" { title = "Share", inputs = { "url" }, outputs = { "copy" }, render = function(s) return s.url end }
flow.screen "Settings" {
  title = "Settings",
  inputs = { "sections" },
  outputs = { open = { from = "sections", label = "name" }, "done" },
}
flow.screen "SettingsSection" { inputs = { "section" }, render = function(s) return s.section.name end }
flow.screen "TabTray" {
  title = "Tabs",
  inputs = { "tabs" },
  -- This slice keeps three tabs at most: the tray offers no new one past them.
  outputs = { select = { from = "tabs" }, newTab = { when = function(s) return #s.tabs < 3 end }, "done" },
}

local Menu = flow.coordinator "Menu"
function Menu:start()
  local menu = self:push("Menu")
  menu.onSettings = function() self:finish("settings") end
  menu.onShare = function() self:finish("share") end
  menu.onClose = function() self:finish() end
  -- Every window's browser hears it, not only this window's.
  menu.onClosePrivate = function()
    self:send("closePrivateTabs", nil, { windows = "all" })
    self:finish()
  end
end

local Share = flow.coordinator "Share"
function Share:start(url)
  self:push("Share", { url = url }).onCopy = function() self:finish() end
end

local Settings = flow.coordinator "Settings"
function Settings:start()
  local settings = self:push("Settings", { sections = { { name = "general" }, { name = "privacy" }, { name = "homepage" } } })
  settings.onOpen = function(section) self:push("SettingsSection", { section = section }) end
  settings.onDone = function() self:finish() end
end

local TabTray = flow.coordinator "TabTray"
function TabTray:start(tabs)
  local tray = self:push("TabTray", { tabs = tabs })
  tray.onSelect = function(url) self:finish({ select = url }) end
  tray.onNewTab = function() self:finish({ new = true }) end
  tray.onDone = function() self:finish() end
end

-- The browser: its tabs are its own data, kept while links come and go.
local Browser = flow.coordinator "Browser"
function Browser:start()
  self.tabs = { "https://mozilla.org" }
  local page = self:push("Browser", { url = self.tabs[1], tabs = 1, private = false })
  self.page = page
  page.onPrivate = function() page.private = true end
  self:onSignal("closePrivateTabs", function() page.private = false end)
  page.onGo = function(url)
    self.tabs[#self.tabs] = url
    page.url = url
  end
  page.onMenu = function()
    if self:child(Menu) then return end -- already open
    self:run(Menu, nil, { modal = true, presentation = "pageSheet", detents = { "medium" }, onFinish = function(choice)
      if choice == "settings" then
        self:run(Settings, nil, { modal = true })
      elseif choice == "share" then
        -- Presented right after the menu goes (DispatchQueue.main.async on iOS): before the user can act
        -- again, so no other sheet can come between.
        self:later(function() self:run(Share, page.url, { modal = true, detents = { "medium" } }) end)
      end
    end })
  end
  page.onTabTray = function()
    self:run(TabTray, self.tabs, { modal = true, presentation = "fullScreen", onFinish = function(choice)
      if choice == nil then return end
      if choice.new then table.insert(self.tabs, "about:home") end
      page.url = choice.select or self.tabs[#self.tabs]
      page.tabs = #self.tabs
    end })
  end
end

flow.app(Browser)

-- Links reach the running browser, whatever is presented above it: each query value its own route.
flow.route("firefox://deep-link?url=/settings/:section", {
  from = "Browser",
  example = { section = "privacy" },
  { on = "Browser", tap = "menu" },
  { on = "Menu", tap = "settings" },
  { on = "Settings", tap = "open", choose = "section" },
  { on = "SettingsSection" },
})
flow.route("firefox://deep-link?url=/tabs", {
  from = "Browser",
  { on = "Browser", tap = "tabTray" },
  { on = "TabTray" },
})
flow.route("firefox://open-url?url=:url", {
  from = "Browser",
  example = { url = "https://example.org" },
  { on = "Browser", tap = "go", payload = ":url" },
})
