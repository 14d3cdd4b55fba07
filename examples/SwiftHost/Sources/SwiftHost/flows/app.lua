-- The host's flows: sign in, then a profile whose screen and storage are written in Swift.
local flow = require "coordinator"

flow.screen "Login" {
  title = "Sign in",
  outputs = { login = "value" },            -- payload: { name = ..., password = ... }
}

local Login = flow.coordinator "Login"

function Login:start()
  local screen = self:push("Login")
  screen.onLogin = function(credentials)
    if credentials.password ~= "secret" then
      self:alert { title = "Login failed", message = "Wrong password", actions = { "OK" } }
      return
    end
    flow.gateway.state = "main"
    self:finish { name = credentials.name }
  end
end

local Main = flow.coordinator "Main"

function Main:start(login)
  self:run(flow.coordinator "ProfileStore")  -- a service coordinator the host wrote in Swift
  local profile = self:push("Profile", { name = login.name, status = "" })  -- a Swift screen type
  profile.onSave = function(name)
    local replies = profile:send("profileSaved", { name = name })  -- ProfileStore answers
    profile.name = name
    profile.status = replies[1] or "not saved"
  end
  profile.onSync = function()
    -- A bug a host must survive: this waits for a sync that never completes.
    while not syncDone() do end -- luacheck: read globals syncDone (the host's, which never says done)
  end
  profile.onLogout = function()
    flow.gateway.state = "authorization"
    self:finish()
  end
end

flow.app { authorization = Login, main = Main }
