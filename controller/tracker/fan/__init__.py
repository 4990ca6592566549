"""The fan family of the tracker: Hong Kong, Chinese and competition rules."""
