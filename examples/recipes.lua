-- A cookbook with a "surprise me" button: the recipe is drawn at random with flow.random, so a replay, a
-- snapshot, :goto and a recorded test draw the same one, a flow test says which (`random(2)` before the
-- tap), and exploration visits every recipe the draw can choose (each value is a branch).
-- Run: ./scripts/coordrun examples/recipes.lua (type `random(3)` before `surprise` to choose the draw)
-- Explore: ./scripts/coordrun explore examples/recipes.lua
local flow = require "coordinator"

local recipes = {
  { name = "Borscht", minutes = 90 },
  { name = "Pelmeni", minutes = 60 },
  { name = "Blini", minutes = 30 },
  { name = "Syrniki", minutes = 25 },
}

flow.screen "Recipes" { inputs = { "recipes" }, outputs = { open = { from = "recipes", label = "name" }, "surprise" } }
flow.screen "Recipe" { inputs = { "dish", "minutes", "surprised" }, outputs = { "another" },
  render = function(s) return ("%s: %d minutes%s"):format(s.dish, s.minutes, s.surprised and " (a surprise)" or "") end }

local Cookbook = flow.coordinator "Cookbook"
function Cookbook:start()
  local list = self:push("Recipes", { recipes = recipes })
  local function show(recipe, surprised)
    local screen = self:push("Recipe", { dish = recipe.name, minutes = recipe.minutes, surprised = surprised })
    -- Another surprise in place of this one: the draw decides which.
    screen.onAnother = function()
      self:pop()
      show(recipes[flow.random(#recipes)], true)
    end
  end
  list.onOpen = function(recipe) show(recipe, false) end
  list.onSurprise = function() show(recipes[flow.random(#recipes)], true) end
end

flow.app(Cookbook)
