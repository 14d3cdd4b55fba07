-- Flow tests of the source app (docs/Testing.md): ./scripts/coordrun test scripts
app "app.lua"

local function login()
  tap("login", { name = "Ann", password = "secret" })
end

test("the app starts at the login screen", function()
  expect.screen "Login"
  expect.stack { "Login" }
  expect.tree { "App", "  Login" }
end)

test("a wrong password shows an alert and stays on the login screen", function()
  tap("login", { name = "Ann", password = "nope" })
  expect.alert { title = "Login failed", message = "Wrong password" }
  tap("OK")
  expect.screen "Login"
end)

test("logging in opens the profile with the user's name", function()
  expect.events(login, { "Login#", "finish Login", "start Main", "push UserEdit" })
  expect.screen("UserEdit", { user = { name = "Ann", city = { name = "Moscow" } } })
  expect.finished("Login", { reason = "finished", result = { name = "Ann" } })
  expect.tree { "App", "  Main" }
end)

test("a federal city is chosen on the regions screen", function()
  login()
  tap("selectCity")
  expect.stack { "UserEdit", "Regions" }
  tap("citySelected", top().federal[2])
  expect.stack { "UserEdit" }
  expect.screen("UserEdit", { user = { name = "Ann", city = { name = "Saint Petersburg" } } })
  expect.finished("CityPicker", { result = { name = "Saint Petersburg" } })
end)

test("a city of a region is chosen on a third screen, and the profile shows it", function()
  login()
  tap("selectCity")
  expect.events(function() tap("regionSelected", top().regions[3]) end, { "Regions#", "push Cities" })
  expect.screen("Cities", { region = "Republic of Tatarstan" })
  tap("citySelected", top().cities[1])
  expect.stack { "UserEdit" }
  expect.equal(top().user.city.name, "Kazan", "the city on the profile")
end)

test("going back from the regions keeps the old city", function()
  login()
  tap("selectCity")
  back()
  expect.stack { "UserEdit" }
  expect.equal(top().user.city.name, "Moscow")
  expect.finished("CityPicker", { reason = "systemBack" })
end)

test("logging out returns to the login screen", function()
  login()
  tap("logout")
  expect.screen "Login"
  expect.tree { "App", "  Login" }
end)

test("a city that is not on the list is refused, and nothing changes", function()
  login()
  tap("selectCity")
  expect.fails(function() tap("citySelected", { name = "Atlantis" }) end, "takes one of the items of 'federal'")
  expect.fails(function() tap("nosuch") end, "has no output 'nosuch'")
  expect.stack { "UserEdit", "Regions" }
end)
