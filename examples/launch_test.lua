-- Flow tests of examples/launch.lua: ./scripts/coordrun test examples
app("launch.lua", { state = "onboarding" })

test("onboarding, then login, then home; logout goes back to login", function()
  expect.screen "Welcome"
  tap("next")
  expect.screen "Login"
  tap("login", "Ann")
  expect.screen("Home", { user = "Ann" })
  expect.finished("Login", { result = "Ann" })
  tap("logout")
  expect.screen "Login"
  expect.tree { "App", "  Login" }
end)
