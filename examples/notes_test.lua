-- Flow tests of examples/notes.lua: ./scripts/coordrun test examples
app "notes.lua"

test("a saved note reaches the list through a signal", function()
  expect.screen("Notes", { notes = {} })
  tap("new")
  expect.stack { "Notes", "NewNote" }
  tap("save", "buy milk")
  expect.stack { "Notes" }
  expect.equal(top().notes[1].text, "buy milk")
  expect.finished("NewNote", { reason = "finished" })
end)

test("cancelling or swiping the new note away adds nothing", function()
  tap("new")
  tap("cancel")
  tap("new")
  back()
  expect.stack { "Notes" }
  expect.equal(#top().notes, 0)
  expect.finished("NewNote", { reason = "systemBack" })
end)

test("the storage runs without screens", function()
  expect.tree { "NotesApp", "  Storage" }
end)
