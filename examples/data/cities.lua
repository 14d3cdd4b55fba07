-- Regions and their cities, shared by the examples.
return {
  regions = {
    { name = "Ulyanovsk Oblast", cities = { { name = "Ulyanovsk" }, { name = "Dimitrovgrad" } } },
    { name = "Samara Oblast", cities = { { name = "Samara" }, { name = "Tolyatti" }, { name = "Syzran" } } },
  },
}
