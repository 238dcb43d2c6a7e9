"""Neural-network building blocks with torch.nn's API."""
