-- The A/B city picker: one factory decides whether users see a list or a map; the coordinator asks for
-- "CityPicker" and never knows which. Run: CITY_PICKER=map ./scripts/coordrun examples/ab-picker.lua
-- Explore the map: ./scripts/coordrun explore examples/ab-picker.lua --set CITY_PICKER=map
local flow = require "coordinator"

local cities = { { name = "Moscow" }, { name = "Saint Petersburg" }, { name = "Kazan" } }

flow.screen "Profile" { inputs = { "city" }, outputs = { "chooseCity" },
  render = function(s) return "City: " .. s.city.name end }
flow.screen "CityList" { title = "Cities (list)", inputs = { "cities" },
  outputs = { citySelected = { from = "cities" } } }
flow.screen "CityMap" { title = "Cities (map)", inputs = { "cities" },
  outputs = { citySelected = { from = "cities" } },
  render = function(s) return ("A map with %d pins"):format(#s.cities) end }

-- The one place that knows about the experiment: a global set before the app loads, or the environment.
flow.factory("CityPicker", function()
  ---@diagnostic disable-next-line: undefined-global
  local variant = CITY_PICKER or (os and os.getenv("CITY_PICKER")) -- luacheck: read globals CITY_PICKER (no os in the sandbox)
  return variant == "map" and "CityMap" or "CityList"
end)

local Profile = flow.coordinator "Profile"
function Profile:start()
  local profile = self:push("Profile", { city = cities[1] })
  profile.onChooseCity = function()
    local picker = self:push("CityPicker", { cities = cities })
    picker.onCitySelected = function(city)
      self:pop()
      profile.city = city
    end
  end
end

flow.app(Profile)
