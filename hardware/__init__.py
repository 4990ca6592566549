"""Hardware data (protocol, pin maps, table profiles) and the device simulator."""
