"""Small pure helpers every layer may use, the rules cores and history included: numbers from
outside made safe, one colour per player, names shortened, a person's name checked.

Imports nothing of the companion and no web framework or database; anything may import it."""
