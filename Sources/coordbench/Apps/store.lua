-- coordbench's held-route case: an app store of 24 screen types (an onboarding and a sign-in of four, a main
-- state of five tabs and an account sheet) whose links all require the main state, so that each is checked
-- held at the start until the user signs in (`coordrun routes`).
local flow = require "coordinator"

local apps = { { id = "maps", name = "Maps" }, { id = "notes", name = "Notes" }, { id = "chess", name = "Chess" } }

flow.screen "Welcome" { outputs = { "next", "signIn" } }
flow.screen "Features" { outputs = { "next" } }
flow.screen "Terms" { outputs = { "accept", "decline" } }
flow.screen "Login" { outputs = { "login", "forgot" } }
flow.screen "Today" { inputs = { "stories" }, outputs = { story = { from = "stories", label = "id" }, "account" } }
flow.screen "Story" { inputs = { "storyId" }, outputs = { "openApp" } }
flow.screen "AppDetail" { inputs = { "appId" }, outputs = { "reviews", "get" } }
flow.screen "Reviews" { inputs = { "appId" }, outputs = { "write" } }
flow.screen "Games" { inputs = { "categories" }, outputs = { category = { from = "categories" } } }
flow.screen "Category" { inputs = { "category", "apps" }, outputs = { open = { from = "apps", label = "id" } } }
flow.screen "Apps" { outputs = { "chart" } }
flow.screen "Chart" { inputs = { "kind", "apps" }, outputs = { open = { from = "apps", label = "id" } } }
flow.screen "Arcade" { inputs = { "games" }, outputs = { play = { from = "games", label = "id" }, "subscribe" } }
flow.screen "ArcadeGame" { inputs = { "gameId" }, outputs = { "play" } }
flow.screen "Subscribe" { outputs = { "confirm" } }
flow.screen "Search" { outputs = { search = "value" } }
flow.screen "Results" { inputs = { "term", "apps" }, outputs = { open = { from = "apps", label = "id" } } }
flow.screen "Account" { outputs = { "purchases", "settings", "updates", "done" } }
flow.screen "Purchases" { inputs = { "apps" } }
flow.screen "Settings" { outputs = { "notifications", "privacy" } }
flow.screen "Notifications" { inputs = { "enabled" }, outputs = { "toggle" } }
flow.screen "Privacy" {}
flow.screen "Updates" { inputs = { "apps" } }
flow.screen "WriteReview" { inputs = { "appId" }, outputs = { "send" } }

local Onboarding = flow.coordinator "Onboarding"
function Onboarding:start()
  local function login()
    self:push("Login").onLogin = function()
      flow.gateway.state = "main"
      self:finish()
    end
  end
  local welcome = self:push("Welcome")
  welcome.onSignIn = login
  welcome.onNext = function()
    self:push("Features").onNext = function()
      local terms = self:push("Terms")
      terms.onAccept = login
      terms.onDecline = function() self:pop() end
    end
  end
end

local Account = flow.coordinator "Account"
function Account:start()
  local account = self:push("Account")
  account.onPurchases = function() self:push("Purchases", { apps = apps }) end
  account.onUpdates = function() self:push("Updates", { apps = apps }) end
  account.onDone = function() self:finish() end
  account.onSettings = function()
    local settings = self:push("Settings")
    settings.onPrivacy = function() self:push("Privacy") end
    settings.onNotifications = function()
      local notifications = self:push("Notifications", { enabled = true })
      notifications.onToggle = function() notifications.enabled = not notifications.enabled end
    end
  end
end

-- The app's page and its reviews, from any tab.
local function showApp(flowSelf, id)
  local detail = flowSelf:push("AppDetail", { appId = id })
  detail.onReviews = function()
    flowSelf:push("Reviews", { appId = id }).onWrite = function()
      flowSelf:push("WriteReview", { appId = id }).onSend = function() flowSelf:pop() end
    end
  end
end

local Today = flow.coordinator "Today"
function Today:start()
  local today = self:push("Today", { stories = { { id = "s1" }, { id = "s2" } } })
  today.onStory = function(story)
    self:push("Story", { storyId = story.id }).onOpenApp = function() showApp(self, "maps") end
  end
  today.onAccount = function() self:run(Account, nil, { modal = true }) end
end

local Games = flow.coordinator "Games"
function Games:start()
  self:push("Games", { categories = { "puzzle", "strategy" } }).onCategory = function(category)
    self:push("Category", { category = category, apps = apps }).onOpen = function(app) showApp(self, app.id) end
  end
end

local AppsTab = flow.coordinator "AppsTab"
function AppsTab:start()
  self:push("Apps").onChart = function()
    self:push("Chart", { kind = "top", apps = apps }).onOpen = function(app) showApp(self, app.id) end
  end
end

local Arcade = flow.coordinator "Arcade"
function Arcade:start()
  local arcade = self:push("Arcade", { games = { { id = "g1" }, { id = "g2" } } })
  arcade.onPlay = function(game) self:push("ArcadeGame", { gameId = game.id }).onPlay = function() end end
  arcade.onSubscribe = function() self:push("Subscribe").onConfirm = function() self:pop() end end
end

local SearchTab = flow.coordinator "SearchTab"
function SearchTab:start()
  self:push("Search").onSearch = function(term)
    self:push("Results", { term = term, apps = apps }).onOpen = function(app) showApp(self, app.id) end
  end
end

local Main = flow.coordinator "Main"
function Main:start()
  self:setTabs { { "Today", Today }, { "Games", Games }, { "Apps", AppsTab }, { "Arcade", Arcade }, { "Search", SearchTab } }
end

flow.app { authorization = Onboarding, main = Main }

flow.route("store://app/:id", { requires = "main", example = { id = "chess" },
  { tab = "Apps" }, { on = "Apps", tap = "chart" }, { on = "Chart", tap = "open", choose = "id" }, { on = "AppDetail" } })
flow.route("store://story/:id", { requires = "main", example = { id = "s2" },
  { tab = "Today" }, { on = "Today", tap = "story", choose = "id" }, { on = "Story" } })
flow.route("store://games/:category", { requires = "main", example = { category = "strategy" },
  { tab = "Games" }, { on = "Games", tap = "category", choose = "category" }, { on = "Category" } })
flow.route("store://arcade/:id", { requires = "main", example = { id = "g1" },
  { tab = "Arcade" }, { on = "Arcade", tap = "play", choose = "id" }, { on = "ArcadeGame" } })
flow.route("store://search/:term", { requires = "main", example = { term = "chess" },
  { tab = "Search" }, { on = "Search", tap = "search", payload = ":term" }, { on = "Results" } })
flow.route("store://reviews/:id", { requires = "main", example = { id = "notes" },
  { tab = "Apps" }, { on = "Apps", tap = "chart" }, { on = "Chart", tap = "open", choose = "id" },
  { on = "AppDetail", tap = "reviews" }, { on = "Reviews" } })
flow.route("store://account/notifications", { requires = "main",
  { tab = "Today" }, { on = "Today", tap = "account" }, { on = "Account", tap = "settings" },
  { on = "Settings", tap = "notifications" }, { on = "Notifications" } })
