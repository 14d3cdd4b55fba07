-- Flow tests of examples/ride.lua: ./scripts/coordrun test examples
app "ride.lua"

-- The server accepts the booking.
local function book()
  tap("request")
  answer("book", "accepted")
end

test("only the world outside moves a ride on", function()
  book()
  expect.screen("Searching")
  expect.equal(event("driverAssigned", { driver = "Ann", minutes = 2 }), true)
  expect.screen("Tracking", { driver = "Ann", minutes = 2 })
  event("arrived")
  tap("done")
  tap("rate", 5)
  expect.stack { "Home" }
  expect.finished("Ride", { result = 5 })
end)

test("an event nobody listens to is sent, and changes nothing", function()
  expect.equal(event("arrived"), false)
  expect.equal(event("background"), false)
  expect.stack { "Home" }
end)

test("in the background a ride is locked", function()
  book()
  expect.events(function() event("background") end, { "event background reached 1" })
  expect.presentation { style = "fullScreen", dismissable = false }
  tap("unlock")
  expect.stack { "Home", "Searching" }
end)

test("an undeclared event is a mistake", function()
  expect.fails(function() event("driverAsigned", {}) end, "no event 'driverAsigned'")
end)

test("a link tracks a ride", function()
  open("ride://tracking")
  expect.stack { "Home", "Tracking" }
end)

test("the minutes left count down as time passes", function()
  book()
  event("driverAssigned", { driver = "Ann", minutes = 3 })
  expect.equal(advance(60), 1)
  expect.screen("Tracking", { minutes = 2 })
  advance(600)
  expect.screen("Tracking", { minutes = 1 })
  event("arrived")
  expect.equal(advance(600), 0)   -- the countdown went when the car arrived
end)

test("a request nobody answers gives up after two minutes", function()
  book()
  advance(119)
  expect.screen("Searching")
  advance(1)
  expect.stack { "Home" }
  expect.finished("Ride", { result = "no driver" })
end)

test("booking waits for the server, which may have no cars", function()
  tap("request")
  tap("request")                     -- one booking at a time
  expect.pending("book", 1)
  expect.screen("Home", { booking = true })
  answer("book", "noCars")
  expect.screen("Home", { booking = false, message = "no cars around" })
end)
