"""jantaku: the daemon that runs an automatic mahjong table."""
