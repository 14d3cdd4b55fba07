-- The sources' app: login -> profile edit -> city pick, as coordinators over screens.
-- Run it: ./scripts/coordrun scripts/app.lua
local flow = require "coordinator"
local cities = flow.freeze(require "cities") -- static data: screens share it instead of copying it

---------------------------------------------------------------------------------------------- screens

flow.screen "Login" {
  title = "Sign in",
  -- payload: { name = ..., password = ... }; the password is secret: never recorded, shown or saved
  outputs = { login = { secret = { "password" } } },
  -- What `coordrun explore` tries for it: a right and a wrong password.
  examples = { login = { { name = "Ann", password = "secret" }, { name = "Ann", password = "wrong" } } },
  render = function() return "Enter your name and password." end,
}

flow.screen "UserEdit" {
  title = "Profile",
  inputs = { "user" },
  outputs = { "selectCity", "logout" },
  render = function(screen)
    local user = screen.user
    return ("User: %s\nCity: %s"):format(user.name, user.city and user.city.name or "not chosen")
  end,
}

flow.screen "Regions" {
  title = "Choose a city",
  inputs = { "federal", "regions" },
  outputs = {
    citySelected = { from = "federal" },   -- a federal city ends the choice
    regionSelected = { from = "regions" }, -- a region opens its list of cities
  },
  render = function() return "A federal city, or a region to choose a city in." end,
}

flow.screen "Cities" {
  inputs = { "region", "cities" },
  outputs = { citySelected = { from = "cities" } },
  render = function(screen) return "Cities of " .. screen.region end,
}

--------------------------------------------------------------------------------------------- coordinators

local Login = flow.coordinator "Login"

function Login:start()
  local screen = self:push("Login")
  screen.onLogin = function(credentials)
    if credentials.password ~= "secret" then
      self:alert { title = "Login failed", message = "Wrong password", actions = { "OK" } }
      return
    end
    flow.gateway.state = "main"
    self:finish { name = credentials.name }  -- the app coordinator starts the main flow with this
  end
end

local CityPicker = flow.coordinator "CityPicker"

function CityPicker:start()
  local regions = self:push("Regions", { federal = cities.federal, regions = cities.regions })
  regions.onCitySelected = function(city) self:finish(city) end
  regions.onRegionSelected = function(region)
    local list = self:push("Cities", { region = region.name, cities = region.cities })
    list.onCitySelected = function(city) self:finish(city) end
  end
end

local Main = flow.coordinator "Main"

function Main:start(login)
  self.user = { name = login and login.name or "Guest", city = { name = "Moscow" } }
  local screen = self:push("UserEdit", { user = self.user })
  screen.onSelectCity = function()
    local picker = self:run(CityPicker)
    picker.onFinish = function(city)
      if not city then return end           -- the user went back: nothing chosen
      self.user.city = city
      flow.update { user = self.user }      -- every screen showing `user` gets it
    end
  end
  screen.onLogout = function()
    flow.gateway.state = "authorization"
    self:finish()
  end
end

flow.app { authorization = Login, main = Main }
