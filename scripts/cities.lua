-- Data for the city picker, shared by the app's flows.
return {
  federal = { "Moscow", "Saint Petersburg" },
  regions = {
    { name = "Ulyanovsk Oblast", cities = { "Ulyanovsk", "Dimitrovgrad" } },
    { name = "Samara Oblast", cities = { "Samara", "Tolyatti", "Syzran" } },
    { name = "Republic of Tatarstan", cities = { "Kazan", "Naberezhnye Chelny", "Yelabuga" } },
  },
}
