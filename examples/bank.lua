-- A bank that remembers: what it keeps across launches (flow.storage: the onboarding seen, who signed in,
-- their token, which is secret), and links that wait for the sign-in (a transfer link opened while signed
-- out continues after it) or pass the onboarding only when it shows.
-- Run: ./scripts/coordrun --storage /tmp/bank.json examples/bank.lua
--   (next, then login { name = "Ann", password = "secret" }; relaunch() or run it again: still signed in;
--    open("bank://transfer?to=savings") while signed out is held until the sign-in)
local flow = require "coordinator"

-- The token a sign-in gives is kept across launches, but never written into a snapshot.
flow.storageSecrets { "token" }

-- The sign-in's answer carries the token: `secret` keeps it out of the steps (a snapshot, the history, a
-- recorded test), which hold { ["$secret"] = "token" } in its place; a restore asks for it again.
flow.request "signIn" {
  secret = { "token" },
  examples = { ok = { name = "Ann", token = "t-7f3a" }, wrong = { error = "Wrong name or password" } },
}

flow.screen "Welcome" {
  title = "Welcome",
  outputs = { "next" },
  render = function() return "Your money, one tap away." end,
}
flow.screen "Login" {
  title = "Sign in",
  inputs = { "error", "busy" },
  outputs = { login = { secret = { "password" } } },
  examples = { login = { { name = "Ann", password = "secret" } } },
  render = function(s) return s.busy and "Signing in..." or s.error or "Enter your name and password." end,
}
flow.screen "Accounts" {
  title = "Accounts",
  inputs = { "user", "accounts" },
  outputs = { transfer = { from = "accounts", label = "id" }, "signOut" },
  render = function(s) return "Hello, " .. s.user end,
}
flow.screen "Transfer" {
  title = "Transfer",
  inputs = { "to" },
  outputs = { send = "value" },
  examples = { send = { 50 } },
  render = function(s) return "To " .. s.to end,
}
flow.screen "Sent" { inputs = { "to", "amount" }, render = function(s) return s.amount .. " sent to " .. s.to end }

-- The first launch shows the onboarding; once it was seen, never again (even after a sign-out).
local Onboarding = flow.coordinator "Onboarding"
function Onboarding:start()
  self:push("Welcome").onNext = function()
    flow.storage.onboarded = true
    self:finish()
  end
end

local Login = flow.coordinator "Login"
function Login:start()
  if not flow.storage.onboarded then
    self:run(Onboarding, nil, { modal = true, presentation = "fullScreen", dismissable = false })
  end
  local login = self:push("Login", { busy = false })
  login.onLogin = function(credentials)
    if login.busy then return end
    login.busy = true
    self:request("signIn", { name = credentials.name }).onResult = function(outcome, answer)
      login.busy = false
      if outcome ~= "ok" then login.error = answer.error return end
      flow.storage.user = answer.name
      flow.storage.token = answer.token
      flow.gateway.state = "main"
      self:finish()
    end
  end
end

local Main = flow.coordinator "Main"
function Main:start()
  local accounts = self:push("Accounts", {
    user = flow.storage.user,
    accounts = { { id = "checking", balance = 120 }, { id = "savings", balance = 900 } },
  })
  accounts.onTransfer = function(account)
    self:push("Transfer", { to = account.id }).onSend = function(amount)
      self:push("Sent", { to = account.id, amount = amount })
    end
  end
  accounts.onSignOut = function()
    flow.storage.user, flow.storage.token = nil, nil
    flow.gateway.state = "authorization"
    self:finish()
  end
end

-- A launch signed in (a token kept from before) starts in the main flow.
if flow.storage.token then flow.gateway.state = "main" end
flow.app { authorization = Login, main = Main }

-- A transfer link needs the main flow: opened signed out, it waits for the sign-in, then continues.
flow.route("bank://transfer?to=:to", {
  requires = "main",
  example = { to = "savings" },
  { on = "Accounts", tap = "transfer", choose = "to" },
  { on = "Transfer" },
})

-- The sign-in link: past the onboarding only when it shows (a first launch), straight to Login otherwise.
flow.route("bank://login", {
  { on = "Welcome", optional = true, tap = "next" },
  { on = "Login" },
})
