local n = ...
local stack = {}
local function push(name, inputs) local s = { name = name, inputs = inputs, on = {} } stack[#stack + 1] = s return s end
local function popTo(depth) for i = #stack, depth + 1, -1 do stack[i] = nil end end
local function tap(output, payload) local top = stack[#stack] top.on[output](payload) end
local user = { name = "Ann", city = { name = "Moscow" } }
local edit = push("UserEdit", { user = user })
edit.on.selectCity = function()
  local depth = #stack
  local function done(city) popTo(depth) user.city = city edit.inputs.user = user end
  local regions = push("Regions", { federal = cities.federal, regions = cities.regions })
  regions.on.citySelected = done
  regions.on.regionSelected = function(region)
    local list = push("Cities", { region = region.name, cities = region.cities })
    list.on.citySelected = done
  end
end
for _ = 1, n do
  tap("selectCity")
  tap("regionSelected", stack[#stack].inputs.regions[1])
  local list = stack[#stack].inputs.cities
  tap("citySelected", list[#list])
  assert(stack[#stack].name == "UserEdit")
end
