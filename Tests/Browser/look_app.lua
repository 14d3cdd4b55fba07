local flow = require "coordinator"
flow.screen "Transfer" {
  inputs = { "account", "recipients", "balance" },
  outputs = { pay = { from = "recipients", label = "name" }, pin = "value", rating = "value", count = "value", alerts = "value", confirm = "value" },
  examples = { pin = { "1234" }, rating = { 4 }, count = { 2 }, alerts = { true }, confirm = { "yes" } },
  look = { title = "Send money", text = "Choose who gets it.", fields = { "balance", { label = "From", input = "account" } },
           list = { from = "recipients", title = "name", subtitle = "bank" },
           controls = { pin = "secure", rating = "stars", count = "stepper", alerts = "toggle", confirm = "button" } },
}
local App = flow.coordinator "App"
function App:start()
  local s = self:push("Transfer", { account = { id = 1, name = "Savings", iban = "DE00" }, balance = 120.5,
    recipients = { { id = "anna", name = "Anna", bank = "N26", feeRate = 0 }, { id = "bo", name = "Bo", bank = "ING", feeRate = 1 } } })
  s.onPay = function() end s.onPin = function() end s.onRating = function() end s.onCount = function() end s.onAlerts = function() end s.onConfirm = function() end
end
flow.app(App)
