-- Signing in through an API and loading a profile before showing it: requests the outside answers later.
-- While one is pending the app shows a spinner; the user may go back meanwhile, and an answer that comes
-- after its flow finished is dropped. Run: ./scripts/coordrun examples/profile.lua
--   (then: login "ann", and answer("signIn", "ok") or answer("signIn", "failed"); :pending lists what waits)
local flow = require "coordinator"

flow.request "signIn" { examples = { ok = { user = "ann" }, failed = { error = "offline" } } }
flow.request "loadProfile" { examples = { ok = { name = "Ann", city = "Kazan" }, failed = { error = "not found" } } }

flow.screen "Login" { title = "Sign in", inputs = { "error", "busy" }, outputs = { login = "value" }, examples = { login = { "ann" } } }
flow.screen "Home" { inputs = { "user" }, outputs = { "people" } }
flow.screen "People" { inputs = { "people", "loading" }, outputs = { open = { from = "people" } } }
flow.screen "Profile" { inputs = { "profile" }, render = function(s) return s.profile.name .. " lives in " .. s.profile.city end }

local Login = flow.coordinator "Login"
function Login:start()
  local login = self:push("Login", { busy = false })
  login.onLogin = function(name)
    if login.busy then return end          -- one sign-in at a time: the button waits for the answer
    login.busy = true
    self:request("signIn", { name = name }).onResult = function(outcome, value)
      login.busy = false
      if outcome == "ok" then
        flow.gateway.state = "main"
        self:finish(value.user)
      else
        login.error = value.error
      end
    end
  end
end

-- The people directory: a child flow the user may leave (Back) while a profile is loading; its request
-- goes with it, and an answer that comes after is dropped.
local Directory = flow.coordinator "Directory"
function Directory:start()
  local people = self:push("People", { people = { "ann", "bob" }, loading = false })
  people.onOpen = function(who)
    if people.loading then return end      -- a second tap while loading pushes nothing
    people.loading = true
    self:request("loadProfile", { user = who }).onResult = function(outcome, value)
      people.loading = false
      if outcome == "ok" then self:push("Profile", { profile = value }) end
    end
  end
end

local Main = flow.coordinator "Main"
function Main:start(user)
  self:push("Home", { user = user }).onPeople = function() self:run(Directory) end
end

flow.app { authorization = Login, main = Main }
