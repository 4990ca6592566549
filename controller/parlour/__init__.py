"""The parlour: many tables on MQTT, the parlour board, game fees and records (``tablectl parlour``)."""
