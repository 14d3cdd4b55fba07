-- A slice of a social network client, navigating as iOS apps do: a full-screen onboarding, terms that must
-- be accepted, a main flow of tabs that signs out and in again, a compose sheet that cannot be swiped away,
-- action sheets whose actions are functions, settings in a form sheet, and "switch account" restarting it all.
-- Run: ./scripts/coordrun examples/social.lua      (coordrun routes examples/social.lua checks its links)
local flow = require "coordinator"

flow.screen "Welcome" { title = "Welcome", outputs = { "continue" }, render = function() return "Posts from people you follow." end }
flow.screen "Login" {
  title = "Sign in",
  outputs = { login = "value", "terms" },
  examples = { login = { "ann", "" } },
}
flow.screen "Terms" { title = "Terms", outputs = { "accept" }, render = function() return "Be kind." end }
flow.screen "Feed" {
  title = "Feed",
  inputs = { "posts" },
  outputs = { open = { from = "posts", label = "text" }, "compose" },
}
flow.screen "Thread" {
  inputs = { "post" }, outputs = { "author" },
  render = function(s) return s.post.author .. ": " .. s.post.text end,
}
flow.screen "Compose" {
  title = "New post",
  outputs = { send = "value", "cancel" },
  examples = { send = { "Hello" } },
}
flow.screen "Profile" {
  title = "Profile",
  inputs = { "user", "isOwn" },
  -- Settings only on your own profile: another's offers no such action, to the user or to any tool.
  outputs = { settings = { when = function(inputs) return inputs.isOwn end } },
}
flow.screen "Settings" { title = "Settings", outputs = { "signOut", "switchAccount", "done" } }

local Onboarding = flow.coordinator "Onboarding"
function Onboarding:start()
  self:push("Welcome").onContinue = function() self:finish() end
end

local Login = flow.coordinator "Login"
-- `why` is nil when the app launches, "signedOut" after a sign-out, "switching" for another account.
function Login:start(why)
  local login = self:push("Login")
  -- At launch, a full-screen cover: nothing to swipe it away by; only its own flow closes it.
  if why == nil then self:run(Onboarding, nil, { modal = true, presentation = "fullScreen" }) end
  login.onTerms = function()
    -- A form sheet the user cannot swipe away: they must accept.
    self:present("Terms", nil, { presentation = "formSheet", dismissable = false }).onAccept = function() self:dismiss() end
  end
  login.onLogin = function(name)
    if name == "" then
      self:alert { title = "Enter your name", actions = { "OK" } }
      return
    end
    flow.gateway.state = "main"
    self:finish(name)
  end
end

local Compose = flow.coordinator "Compose"
function Compose:start()
  local compose = self:push("Compose")
  compose.onSend = function(text) self:finish(text) end
  compose.onCancel = function()
    -- An action sheet whose actions are functions: answering it leaves the app as the action made it.
    self:alert {
      title = "Discard this post?", style = "actionSheet",
      actions = { { "Discard", function() self:finish() end, style = "destructive" }, { "Keep editing", style = "cancel" } },
    }
  end
end

local Settings = flow.coordinator "Settings"
function Settings:start()
  local settings = self:push("Settings")
  settings.onDone = function() self:finish() end
  settings.onSignOut = function()
    self:alert {
      title = "Sign out?", style = "actionSheet",
      actions = { { "Sign out", function() self:send("signOut") end }, "Cancel" },
    }
  end
  -- Another account: the whole tree goes and the sign-in flow starts, in one step.
  settings.onSwitchAccount = function() flow.restart("authorization", "switching") end
end

local Feed = flow.coordinator "Feed"
function Feed:start(user)
  self.user = user
  self.posts = { { id = "p1", author = "bob", text = "Coordinators in Lua" } }
  local feed = self:push("Feed", { posts = self.posts })
  feed.onOpen = function(post)
    -- A custom animation's name: data for the host's router, shown in the event log.
    self:push("Thread", { post = post }, { transition = "zoom" }).onAuthor = function()
      local profile = self:push("Profile", { user = post.author, isOwn = post.author == self.user })
      profile.onSettings = function() self:run(Settings, nil, { modal = true, presentation = "formSheet" }) end
    end
  end
  feed.onCompose = function() self:compose() end
end

-- The feed's compose button and the tab bar's Compose tab open the same sheet.
function Feed:compose()
  self:run(Compose, nil, {
    modal = true, dismissable = false, detents = { "medium", "large" },
    onFinish = function(text)
      if text then
        -- Your latest post shows first, above the people you follow.
        self.posts = { { id = "mine", author = self.user, text = text }, self.posts[#self.posts] }
        self:update("posts", self.posts)
      end
    end,
  })
end

local Profile = flow.coordinator "Profile"
function Profile:start(user)
  self:push("Profile", { user = user, isOwn = true }).onSettings = function()
    self:run(Settings, nil, { modal = true, presentation = "formSheet" })
  end
end

local Main = flow.coordinator "Main"
-- A new follower: the Profile tab's badge, until the user looks.
function Profile:onTabSelected() self:setBadge("Profile", nil) end

function Main:start(user)
  local flows = self:setTabs {
    { "Feed", Feed, user },
    { "Compose", action = function() self.feed:compose() end },   -- a button in the tab bar
    { "Profile", Profile, user },
  }
  self.feed = flows[1]   -- the flows, in order: the action has none
  self:setBadge("Profile", 1)
  -- The sources' Gateway pattern: the main flow moves the gateway and finishes; its tab bar goes with it.
  self:onSignal("signOut", function()
    flow.gateway.state = "authorization"
    self:finish("signedOut")
  end)
end

flow.app { authorization = Login, main = Main }

flow.route("social://thread/:id", {
  { on = "Welcome", tap = "continue" },
  { on = "Login", tap = "login", payload = "ann" },
  { tab = "Feed" },
  { on = "Feed", tap = "open", choose = "id" },
  example = { id = "p1" },
})
-- An action sheet's action is a bare tap while it shows.
flow.route("social://signout", {
  { on = "Welcome", tap = "continue" },
  { on = "Login", tap = "login", payload = "ann" },
  { tab = "Profile" }, { tap = "settings" }, { tap = "signOut" }, { tap = "Sign out" },
})
