-- The source app: login -> profile edit -> city pick.
--
-- Placeholder until the coordinator runtime lands (the scripting bridge is a later milestone): for now
-- this script only shows that coordrun runs Lua 5.4 through the project's Swift layer, and that `require`
-- finds modules next to the main script.
local cities = require "cities"

print(("coordrun: %s through LuaKit"):format(_VERSION))
print("Federal cities: " .. table.concat(cities.federal, ", "))
print("The coordinator flows (Login, UserEdit, Regions, Cities) arrive with the scripting bridge.")
