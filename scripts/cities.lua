-- Data for the city picker: federal cities, and regions with their cities.
return {
  federal = { { name = "Moscow" }, { name = "Saint Petersburg" } },
  regions = {
    { name = "Ulyanovsk Oblast", cities = { { name = "Ulyanovsk" }, { name = "Dimitrovgrad" } } },
    { name = "Samara Oblast", cities = { { name = "Samara" }, { name = "Tolyatti" }, { name = "Syzran" } } },
    { name = "Republic of Tatarstan", cities = { { name = "Kazan" }, { name = "Naberezhnye Chelny" }, { name = "Yelabuga" } } },
  },
}
