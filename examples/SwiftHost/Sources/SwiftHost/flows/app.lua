-- The host's flows: sign in, then a profile whose screen and storage are written in Swift.
local flow = require "coordinator"

-- Work the host does outside the flows, answered later: checking a password (a real API in a server).
flow.request "checkPassword" { examples = { ok = { token = "t-1" }, refused = { reason = "wrong password" } } }

-- Who signed in is kept in the app's storage, which the host keeps (its database, per user); the token
-- the check gave is never written into a snapshot.
flow.storageSecrets { "token" }

flow.screen "Login" {
  title = "Sign in",
  outputs = { login = "value" },            -- payload: { name = ..., password = ... }
}

local Login = flow.coordinator "Login"

function Login:start()
  local screen = self:push("Login")
  screen.onLogin = function(credentials)
    -- The host checks the password and answers later; meanwhile the screen stays as it is.
    self:request("checkPassword", credentials).onResult = function(outcome, answer)
      if outcome ~= "ok" then
        self:alert { title = "Login failed", message = answer.reason, actions = { "OK" } }
        return
      end
      flow.storage.user, flow.storage.token = credentials.name, answer.token
      flow.gateway.state = "main"
      self:finish { name = credentials.name }
    end
  end
end

local Main = flow.coordinator "Main"

local function signOut(self)
  flow.storage.user, flow.storage.token = nil, nil
  flow.gateway.state = "authorization"
  self:finish()
end

function Main:start(login)
  self:run(flow.coordinator "ProfileStore")  -- a service coordinator the host wrote in Swift
  -- Signed in now, or in an earlier launch (the storage kept who).
  local user = login and login.name or flow.storage.user
  local profile = self:push("Profile", { name = user, status = "" })  -- a Swift screen type
  profile.onSave = function(name)
    local replies = profile:send("profileSaved", { name = name })  -- ProfileStore answers
    profile.name = name
    profile.status = replies[1] or "not saved"
  end
  profile.onSync = function()
    -- A bug a host must survive: this waits for a sync that never completes.
    while not syncDone() do end -- luacheck: read globals syncDone (the host's, which never says done)
  end
  -- Signed in for ten minutes of the app's clock (which the host drives from real time).
  self:after(600, function() signOut(self) end)
  profile.onLogout = function() signOut(self) end
end

-- A launch with a user kept starts signed in.
if flow.storage.user then flow.gateway.state = "main" end
flow.app { authorization = Login, main = Main }
