-- Planted typos in a test file (EditorCommandTests copies it into its workspace as typos_test.lua).
app "app.lua"
test("typos", function()
  expect.stak { "Login" }
  tapp("login")
end)
