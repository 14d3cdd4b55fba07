-- Flow tests of examples/social.lua: ./scripts/coordrun test examples
app "social.lua"

local function signIn(name)
  if top().name == "Welcome" then tap("continue") end
  tap("login", name or "ann")
end

local function signOut()
  tab("Profile")
  tap("settings")
  tap("signOut")
  tap("Sign out")
end

test("onboarding is a full-screen cover only its own flow closes", function()
  expect.presentation { style = "fullScreen", dismissable = false }
  expect.fails(dismiss, "cannot be swiped away")
  expect.fails(back, "cannot be swiped away")
  tap("continue")
  expect.stack { "Login" }
end)

test("the terms must be accepted", function()
  tap("continue")
  tap("terms")
  expect.presentation { style = "formSheet", dismissable = false }
  expect.fails(dismiss, "dismissable = false")
  tap("accept")
  expect.stack { "Login" }
end)

test("signing out of the tab bar and in again, ten times", function()
  for i = 1, 10 do
    signIn("user" .. i)
    expect.tabs { "Feed", "Compose", "Profile", selected = "Feed" }
    expect.tree { "App", "  Main", "    Feed", "    Profile" }
    signOut()
    expect.stack { "Login" }
    expect.tree { "App", "  Login" }
  end
  expect.equal(require("coordinator").gateway.state, "authorization")
end)

test("switching account restarts the whole app in one step, ten times", function()
  signIn()
  for i = 1, 10 do
    tab("Profile")
    tap("settings")
    expect.presentation("formSheet")
    expect.events(function() tap("switchAccount") end, { "Settings", "finish Settings", "finish Profile", "finish Feed", "finish Main" })
    expect.stack { "Login" }
    expect.tree { "App", "  Login" }
    signIn("account" .. i)
    expect.tabs { "Feed", "Compose", "Profile", selected = "Feed" }
    expect.equal(top().posts[1].author, "bob")
  end
end)

test("compose is a sheet the user cannot swipe away; its action sheet discards", function()
  signIn()
  tap("compose")
  expect.presentation { style = "pageSheet", dismissable = false, detent = "medium" }
  expect.fails(dismiss, "cannot be swiped away")
  tap("cancel")
  expect.alert { title = "Discard this post?" }
  tap("Keep editing")
  expect.stack { "Feed", "Compose" }
  tap("cancel")
  tap("Discard")
  expect.stack { "Feed" }
  expect.finished("Compose", { reason = "finished" })
end)

test("a sent post shows first", function()
  signIn()
  tap("compose")
  tap("send", "Hello")
  expect.equal(top().posts[1].text, "Hello")
  tap("open", top().posts[1])
  expect.screen("Thread")
end)

test("the links open a thread and sign out", function()
  open("social://thread/p1")
  expect.stack { "Feed", "Thread" }
  open("social://signout")
  expect.stack { "Login" }
end)

test("settings are offered on your own profile only", function()
  signIn()
  tap("open", top().posts[1])
  tap("author")
  expect.screen("Profile", { user = "bob", isOwn = false })
  expect.fails(function() tap("settings") end, "output 'settings' of Profile is not offered now")
  back()
  back()
  tap("compose")
  tap("send", "Mine")
  tap("open", top().posts[1])
  tap("author")
  expect.screen("Profile", { user = "ann", isOwn = true })
  tap("settings")
  expect.presentation("formSheet")
end)

test("the Compose tab is a button: it opens the sheet and selects nothing", function()
  signIn()
  tab("Profile")
  tab("Compose")
  expect.stack { "Profile", "Compose" }
  tap("send", "From the tab bar")
  expect.tabs { "Feed", "Compose", "Profile", selected = "Profile" }
  tab("Feed")
  expect.equal(top().posts[1].text, "From the tab bar")
end)

test("the Profile tab's badge clears when the user looks", function()
  signIn()
  expect.badge("Profile", 1)
  tab("Profile")
  expect.badge("Profile", nil)
end)
