-- Planted typos the analyzer must flag, each with the generated annotations of scripts/app.lua (EditorCommandTests).
local flow = require "coordinator"
local Main = flow.coordinator "Main"
function Main:start()
  self:pussh("Regions")
  local screen = self:push("UserEdit")
  screen.onSelectCty = function() end
  print(self.usr)
  self:push("Regoins")
  flow.scren "X" {}
  self:alert { title = "Sure?", actions = { { "Delete", style = "destrcutive" } } }
end
