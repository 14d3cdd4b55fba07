-- The app's flow tests: coordrun test
app "app.lua"

test("the list opens a note, and Back returns to it", function()
  expect.screen "Notes"
  tap("open", top().notes[1])
  expect.screen("Note", { note = { title = "Groceries", text = "milk, bread" } })
  back()
  expect.stack { "Notes" }
end)

test("deleting a note takes it off the list", function()
  tap("open", top().notes[2])
  tap("delete")
  expect.stack { "Notes" }
  expect.equal(#top().notes, 1, "notes left")
end)
