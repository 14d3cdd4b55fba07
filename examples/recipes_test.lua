-- Flow tests of examples/recipes.lua: ./scripts/coordrun test examples
-- Each random draw is given before the step that draws it: random(k) is the value the next draw takes.
app "recipes.lua"

test("a surprise shows the recipe drawn", function()
  random(3)
  tap("surprise")
  expect.screen("Recipe", { dish = "Blini", surprised = true })
end)

test("another surprise replaces the recipe", function()
  random(1) tap("surprise")
  random(4) tap("another")
  expect.stack { "Recipes", "Recipe" }
  expect.screen("Recipe", { dish = "Syrniki" })
end)

test("opening a recipe draws nothing", function()
  tap("open", { name = "Pelmeni", minutes = 60 })
  expect.screen("Recipe", { dish = "Pelmeni", surprised = false })
end)

test("a draw with no value given fails the step", function()
  expect.fails(function() tap("surprise") end, "with no value given")
  expect.stack { "Recipes" }
end)
