-- Flow tests of examples/profile.lua: ./scripts/coordrun test examples
app "profile.lua"

local function signIn()
  tap("login", "ann")
  answer("signIn", "ok")
  tap("people")
end

test("signing in waits for the answer", function()
  tap("login", "ann")
  expect.pending("signIn", 1)
  expect.screen("Login", { busy = true })
  answer("signIn", "ok")
  expect.screen("Home", { user = "ann" })
  expect.pending("signIn", 0)
end)

test("a failed sign-in says why", function()
  tap("login", "ann")
  answer("signIn", "failed")
  expect.screen("Login", { error = "offline", busy = false })
end)

test("a second tap while loading pushes nothing", function()
  signIn()
  tap("open", "bob")
  tap("open", "bob")
  expect.pending("loadProfile", 1)
  answer("loadProfile", "ok", { name = "Bob", city = "Paris" })
  expect.stack { "Home", "People", "Profile" }
end)

test("back while loading: the request goes with its flow, and no answer comes", function()
  signIn()
  tap("open", "ann")
  back()
  expect.finished("Directory", { reason = "systemBack" })
  expect.pending("loadProfile", 0)
  expect.fails(function() answer("loadProfile", "ok") end, "no request loadProfile is pending")
  expect.stack { "Home" }
end)

test("an outcome the request does not declare is a mistake", function()
  tap("login", "ann")
  expect.fails(function() answer("signIn", "maybe") end, "request signIn has no outcome 'maybe' (outcomes: failed, ok)")
  expect.fails(function() answer("signUp", "ok") end, "no request 'signUp'")
end)
