-- Flow tests of examples/catalog.lua: ./scripts/coordrun test examples
app "catalog.lua"

test("confirming replaces the stack with the result", function()
  tap("submit", "hello")
  expect.screen("TextConfirmation", { text = "hello" })
  tap("confirm")
  expect.stack { "Done" }
  expect.screen("Done", { text = "hello" })
end)

test("editing goes back to the text", function()
  tap("submit", "hello")
  tap("edit")
  expect.stack { "TextInput" }
  expect.fails(function() tap("confirm") end, "has no output 'confirm'")
end)
