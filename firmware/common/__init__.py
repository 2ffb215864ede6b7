"""What every device does: frames, sequence numbers, the ring, hello, heartbeat."""
