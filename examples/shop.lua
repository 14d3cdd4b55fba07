-- A shop with a tab bar: Catalog (categories > products > product, three deep), Cart (with a badge) and
-- Profile; buying presents a checkout modal with its own stack. Routes open it at any of these places.
-- Run: ./scripts/coordrun examples/shop.lua
--      ./scripts/coordrun --open shop://catalog/shoes/42 examples/shop.lua
--      ./scripts/coordrun routes examples/shop.lua          (opens every route with its example)
local flow = require "coordinator"

local catalog = flow.freeze {
  { id = "shoes", name = "Shoes", products = {
      { id = "42", name = "Trail runner", price = 90 },
      { id = "43", name = "City sneaker", price = 70 } } },
  { id = "shirts", name = "Shirts", products = {
      { id = "7", name = "Linen shirt", price = 45 } } },
}

local function money(n) return ("%d EUR"):format(n) end

flow.screen "Categories" { title = "Catalog", inputs = { "categories" }, outputs = { open = { from = "categories" } } }
flow.screen "Products" { inputs = { "category" }, outputs = { open = { from = "products" } }, required = { "category", "products" },
  render = function(s) return s.category end }
flow.screen "Product" { required = { "product" }, inputs = { "inCart" }, outputs = { "add", "buy" },
  render = function(s)
    return ("%s, %s%s"):format(s.product.name, money(s.product.price), s.inCart and " (in your cart)" or "")
  end }
flow.screen "Cart" { inputs = { "items", "total" }, outputs = { "checkout", remove = { from = "items", label = "name" } },
  render = function(s)
    if #s.items == 0 then return "Your cart is empty" end
    local lines = {}
    for _, item in ipairs(s.items) do lines[#lines + 1] = "- " .. item.name .. ", " .. money(item.price) end
    lines[#lines + 1] = "Total: " .. money(s.total)
    return table.concat(lines, "\n")
  end }
flow.screen "Checkout" { required = { "items" }, outputs = { "pay", "cancel" },
  render = function(s)
    local total = 0
    for _, item in ipairs(s.items) do total = total + item.price end
    return ("%d item(s), %s"):format(#s.items, money(total))
  end }
flow.screen "Paid" { required = { "total" }, outputs = { "done" }, render = function(s) return "Paid " .. money(s.total) end }
flow.screen "Profile" { inputs = { "user" }, outputs = { "settings" }, render = function(s) return "Signed in as " .. s.user end }
flow.screen "Settings" { render = function() return "Notifications: on" end }

-- Checkout: a modal with its own stack. It finishes with the total paid, or nil when cancelled.
local Checkout = flow.coordinator "Checkout"
function Checkout:start(items)
  self.items = items
  local checkout = self:push("Checkout", { items = items })
  checkout.onCancel = function() self:finish() end
  checkout.onPay = function()
    local total = 0
    for _, item in ipairs(items) do total = total + item.price end
    self.paid = total
    self:push("Paid", { total = total }).onDone = function() self:finish(total) end
  end
end

-- Catalog: categories, then a category's products, then one product.
local Catalog = flow.coordinator "Catalog"
function Catalog:start()
  local categories = self:push("Categories", { categories = catalog })
  categories.onOpen = function(category)
    self.category = category.id
    local products = self:push("Products", { category = category.name, products = category.products })
    products.onOpen = function(product)
      self.product = product.id
      local page = self:push("Product", { product = product, inCart = false })
      page.onAdd = function() self:send("addToCart", product); page.inCart = true end
      page.onBuy = function() self:send("buy", product) end
    end
  end
end

local Cart = flow.coordinator "Cart"
function Cart:start()
  self.items, self.total = {}, 0
  local cart = self:push("Cart", { items = self.items, total = 0 })
  cart.onCheckout = function() self:send("checkout", self.items) end
  cart.onRemove = function(item) self:remove(item) end
  self.screen = cart
end
function Cart:show()
  self.screen.items, self.screen.total = self.items, self.total
  self:send("cartChanged", #self.items)
end
function Cart:add(product)
  for _, item in ipairs(self.items) do
    if item.id == product.id then return end -- in the cart already
  end
  self.items[#self.items + 1] = product
  self.total = self.total + product.price
  self:show()
end
function Cart:remove(product)
  for i, item in ipairs(self.items) do
    if item.id == product.id then
      table.remove(self.items, i)
      self.total = self.total - item.price
      return self:show()
    end
  end
end
function Cart:empty()
  self.items, self.total = {}, 0
  self:show()
end

local Profile = flow.coordinator "Profile"
function Profile:start()
  self:push("Profile", { user = "Ann" }).onSettings = function() self:push("Settings") end
end

-- The shop: the tab bar, the cart's badge, and the checkout modal over everything.
local Shop = flow.coordinator "Shop"
function Shop:start()
  local tabs = self:setTabs { { "Catalog", Catalog }, { "Cart", Cart }, { "Profile", Profile } }
  local cart = tabs[2]
  local function checkout(items)
    self:run(Checkout, items, { modal = true, onFinish = function(total)
      if total then
        cart:empty()
        self:update("inCart", false) -- every product page shown, in any tab
        self:selectTab("Catalog")
      end
    end })
  end
  self:onSignal("addToCart", function(product) cart:add(product) end)
  self:onSignal("cartChanged", function(count) self:setBadge("Cart", count > 0 and count or nil) end)
  self:onSignal("buy", function(product) checkout({ product }) end)
  self:onSignal("checkout", function(items)
    if #items == 0 then self:alert { title = "Your cart is empty" } else checkout(items) end
  end)
end

flow.app(Shop)

-- What the shop means, checked in every state exploration reaches (and after every step of a flow test):
-- the cart's total is never negative, and from anywhere the user can get back to the catalog.
flow.invariant("the cart's total is never negative", function(app)
  for _, cart in ipairs(app.screens("Cart")) do
    if cart.total < 0 then return false end
  end
  return true
end)
flow.reachable("the catalog can always be reached", function(app)
  local top = app.top()
  return top ~= nil and top.name == "Categories"
end)

-- Deep links. Each rebuilds the shop from its start and walks there as the user would, so every flow on
-- the way runs and wires its handlers.
flow.route("shop://catalog/:category/:product", {
  example = { category = "shoes", product = "42" },
  { tab = "Catalog" },
  { on = "Categories", tap = "open", choose = "category" },
  { on = "Products", tap = "open", choose = "product" },
  { on = "Product" },
})
flow.route("shop://catalog/:category", {
  example = { category = "shirts" },
  { tab = "Catalog" },
  { on = "Categories", tap = "open", choose = "category" },
})
flow.route("shop://buy/:category/:product", {
  example = { category = "shirts", product = "7" },
  { on = "Categories", tap = "open", choose = "category" },
  { on = "Products", tap = "open", choose = "product" },
  { on = "Product", tap = "buy" },
  { on = "Checkout", flow = "Checkout" },
})
flow.route("shop://settings", {
  { tab = "Profile" },
  { on = "Profile", tap = "settings" },
})
-- Continues from where the shop is: whatever is showing, the cart tab comes up.
flow.route("shop://cart", { from = "current", { tab = "Cart" } })
