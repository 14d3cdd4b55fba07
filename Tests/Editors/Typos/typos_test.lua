-- Planted typos in a test file (EditorCommandTests).
app "app.lua"
test("typos", function()
  expect.stak { "Login" }
  tapp("login")
end)
