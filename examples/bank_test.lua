-- Flow tests of examples/bank.lua: ./scripts/coordrun test examples
app "bank.lua"

local function signIn()
  tap("login", { name = "Ann", password = "secret" })
  answer("signIn", "ok")
end

test("a first launch shows the onboarding, and a relaunch never again", function()
  expect.stack { "Login", "Welcome" }
  tap("next")
  expect.storage { onboarded = true }
  relaunch()
  expect.stack { "Login" }
end)

test("a sign-in is kept across a relaunch, its token too", function()
  tap("next")
  signIn()
  expect.screen("Accounts", { user = "Ann" })
  expect.storage { user = "Ann", token = "t-7f3a" }
  relaunch()
  expect.screen("Accounts", { user = "Ann" })
  tap("signOut")
  expect.storage("token", nil)
  relaunch()
  expect.stack { "Login" }
end)

test("a wrong password keeps nothing", function()
  tap("next")
  tap("login", { name = "Ann", password = "wrong" })
  answer("signIn", "wrong")
  expect.screen("Login", { error = "Wrong name or password" })
  expect.storage("user", nil)
end)

test("a transfer link opened signed out waits for the sign-in", function()
  expect.equal(open("bank://transfer?to=savings"), "held")
  tap("next")
  signIn()
  expect.stack { "Accounts", "Transfer" }
  expect.screen("Transfer", { to = "savings" })
end)

test("a transfer link opened signed in opens at once", function()
  tap("next")
  signIn()
  expect.equal(open("bank://transfer?to=checking"), nil)
  expect.screen("Transfer", { to = "checking" })
end)

test("a second link held takes the place of the first", function()
  open("bank://transfer?to=savings")
  open("bank://transfer?to=checking")
  tap("next")
  signIn()
  expect.screen("Transfer", { to = "checking" })
end)

test("a relaunch drops a held link", function()
  open("bank://transfer?to=savings")
  relaunch()
  tap("next")
  signIn()
  expect.stack { "Accounts" }
end)

test("the sign-in link passes the onboarding only when it shows", function()
  open("bank://login")
  expect.stack { "Login" }
  expect.storage { onboarded = true }
  relaunch()
  open("bank://login")
  expect.stack { "Login" }
end)

test("a snapshot taken signed in restores after a relaunch", function()
  tap("next")
  signIn()
  tap("transfer", { id = "savings", balance = 900 })
  local saved = snapshot()
  relaunch()
  expect.stack { "Accounts" }
  restore(saved, { password = "secret" })   -- a snapshot never holds the password typed
  expect.stack { "Accounts", "Transfer" }
end)
