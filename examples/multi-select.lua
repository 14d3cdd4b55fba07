-- Choosing several cities: each region on the region list shows how many of its cities are chosen, and the
-- profile shows the total. One action on the city list updates the two screens below it at once.
-- Run: ./scripts/coordrun examples/multi-select.lua
local flow = require "coordinator"
local data = require "data.cities"

local function count(chosen, region)
  local n = 0
  for _, city in ipairs(region.cities) do if chosen[city.name] then n = n + 1 end end
  return n
end

flow.screen "Profile" { inputs = { "chosen" }, outputs = { "chooseCities" },
  render = function(s)
    local names = {}
    for name in pairs(s.chosen) do names[#names + 1] = name end
    table.sort(names)
    return ("Chosen: %d%s"):format(#names, #names > 0 and (" (" .. table.concat(names, ", ") .. ")") or "")
  end }

flow.screen "Regions" { inputs = { "regions", "chosen" }, outputs = { regionSelected = { from = "regions" } },
  render = function(s)
    local lines = {}
    for i, region in ipairs(s.regions) do lines[i] = ("%s: %d chosen"):format(region.name, count(s.chosen, region)) end
    return table.concat(lines, "\n")
  end }

-- `toggle` chooses from `cities`, an input the coordinator fills from the region.
flow.screen "Cities" { inputs = { "region", "cities", "chosen" }, required = { "region" },
  outputs = { "done", toggle = { from = "cities" } },
  render = function(s)
    local lines = {}
    for i, city in ipairs(s.cities) do lines[i] = (s.chosen[city.name] and "[x] " or "[ ] ") .. city.name end
    return table.concat(lines, "\n")
  end }

local Picker = flow.coordinator "Picker"
function Picker:start()
  local chosen = {}
  local regions = self:push("Regions", { regions = data.regions, chosen = chosen })
  regions.onRegionSelected = function(region)
    local cities = self:push("Cities", { region = region, cities = region.cities, chosen = chosen })
    cities.onToggle = function(city)
      chosen[city.name] = not chosen[city.name] or nil
      flow.update { chosen = chosen }     -- Cities, Regions and Profile re-render at once
    end
    cities.onDone = function() self:pop() end
  end
end

local Profile = flow.coordinator "Profile"
function Profile:start()
  local profile = self:push("Profile", { chosen = {} })
  profile.onChooseCities = function() self:run(Picker) end
end

flow.app(Profile)
