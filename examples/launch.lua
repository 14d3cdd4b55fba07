-- The launch flow: the gateway's state picks onboarding, authorization or the main flow; each flow moves
-- the gateway on when it finishes, and the application coordinator starts the next one.
-- Run: ./scripts/coordrun --state onboarding examples/launch.lua   (or --state main)
local flow = require "coordinator"

flow.screen "Welcome" { title = "Welcome", outputs = { "next" }, render = function() return "Coordinators, in Lua." end }
flow.screen "Login" { title = "Sign in", outputs = { login = "value" }, examples = { login = { "Ann" } } }
flow.screen "Home" { inputs = { "user" }, outputs = { "logout" }, render = function(s) return "Hello, " .. s.user end }

local Onboarding = flow.coordinator "Onboarding"
function Onboarding:start()
  self:push("Welcome").onNext = function()
    flow.gateway.state = "authorization"
    self:finish()
  end
end

local Login = flow.coordinator "Login"
function Login:start()
  self:push("Login").onLogin = function(name)
    flow.gateway.state = "main"
    self:finish(name)
  end
end

local Main = flow.coordinator "Main"
function Main:start(user)
  self:push("Home", { user = user or "guest" }).onLogout = function()
    flow.gateway.state = "authorization"
    self:finish()
  end
end

flow.app { onboarding = Onboarding, authorization = Login, main = Main }
