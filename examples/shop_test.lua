-- Flow tests of examples/shop.lua: ./scripts/coordrun test examples
app "shop.lua"

test("a product link opens three deep inside the Catalog tab", function()
  tab("Profile")
  open("shop://catalog/shoes/42")
  expect.screen("Product", { product = { id = "42", name = "Trail runner", price = 90 }, inCart = false })
  expect.stack { "Categories", "Products", "Product" }
  expect.tree { "Shop", "  Catalog", "  Cart", "  Profile" }
  -- The flows on the way wired their handlers: the page works as if the user had walked there.
  tap("add")
  expect.equal(top().inCart, true)
  back()
  expect.screen("Products", { category = "Shoes" })
end)

test("a link into a modal builds the checkout flow over the product", function()
  open("shop://buy/shirts/7")
  expect.stack { "Categories", "Products", "Product", "Checkout" }
  expect.tree { "Shop", "  Catalog", "  Cart", "  Profile", "  Checkout" }
  tap("pay")
  tap("done")
  expect.finished("Checkout", { result = 45, reason = "finished" })
  expect.stack { "Categories", "Products", "Product" }
end)

test("a link that does not resolve changes nothing", function()
  tap("open", top().categories[2])
  expect.fails(function() open("shop://catalog/hats/1") end, 'parameter category = "hats" matches no item of categories on Categories (shoes, shirts)')
  expect.fails(function() open("shop://nowhere") end, "no route matches shop://nowhere")
  expect.stack { "Categories", "Products" }
end)

test("a link that continues from where the app is", function()
  open("shop://catalog/shoes/42")
  open("shop://cart")
  expect.screen("Cart")
  tab("Catalog")
  expect.stack { "Categories", "Products", "Product" }
end)

test("what is added reaches the cart, and paying empties it", function()
  open("shop://catalog/shoes/42")
  tap("add")
  tab("Cart")
  expect.screen("Cart", { items = { { id = "42", name = "Trail runner", price = 90 } } })
  tap("checkout")
  tap("pay")
  tap("done")
  expect.screen("Product") -- paid: the Catalog tab is selected again, where the user was
  tab("Cart")
  expect.screen("Cart", { items = {} })
end)

test("dismiss swipes the whole checkout away and its flow finishes by the system", function()
  open("shop://buy/shirts/7")
  tap("pay")
  expect.stack { "Categories", "Products", "Product", "Checkout", "Paid" }
  dismiss()
  expect.finished("Checkout", { reason = "systemBack" })
  expect.stack { "Categories", "Products", "Product" }
  expect.fails(dismiss, "nothing is presented")
end)

test("a snapshot restores the same app, and its screens work as before", function()
  open("shop://catalog/shoes/42")
  tap("add")
  tab("Cart")
  tap("checkout")
  local taken = snapshot()
  tap("cancel")
  tab("Profile")
  restore(taken)
  expect.stack { "Cart", "Checkout" }
  expect.tree { "Shop", "  Catalog", "  Cart", "  Profile", "  Checkout" }
  tap("pay")
  expect.screen("Paid", { total = 90 })
end)

test("a snapshot of other scripts restores with a warning while its steps build the same app", function()
  open("shop://catalog/shoes/42")
  local taken = snapshot():gsub('"digest": "[^"]*"', '"digest": "lua-fnv1a64:0000000000000000"')
  tab("Profile")
  local warning = restore(taken) or ""
  expect.equal(warning:find("the snapshot was taken of other scripts", 1, true) ~= nil, true, "the warning")
  expect.stack { "Categories", "Products", "Product" }
  -- Steps that no longer work in these scripts: refused, saying both.
  local broken = taken:gsub("shop://catalog/shoes/42", "shop://catalog/hats/1")
  expect.fails(function() restore(broken) end, "the snapshot was taken of other scripts")
  expect.fails(function() restore("{}") end, "it has no format")
end)
