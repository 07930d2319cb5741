"""Safe subgame solving: cuts, gadgets, GGSE (Kubíček, Lisý & Sandholm 2025)."""
