"""The two tools the sample agent can call (the tiny fixture model knows exactly these)."""

WEATHER = {
    "Paris": ("sunny", 21),
    "Kyoto": ("cloudy", 18),
    "Tokyo": ("rainy", 9),
    "Berlin": ("windy", 12),
    "Oslo": ("snowy", 2),
}

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city.",
                                      "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}},
                                                     "required": ["city"]}}},
    {"type": "function", "function": {"name": "add", "description": "Add two integers.",
                                      "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                                                     "required": ["a", "b"]}}},
]


def get_weather(city):
    if city not in WEATHER:
        return {"error": f"unknown city: {city}"}
    condition, temp_c = WEATHER[city]
    return {"city": city, "temp_c": temp_c, "condition": condition}


def add(a, b):
    return {"result": int(a) + int(b)}


def call_tool(name, arguments):
    if name == "get_weather":
        return get_weather(**arguments)
    if name == "add":
        return add(**arguments)
    return {"error": f"unknown tool: {name}"}
