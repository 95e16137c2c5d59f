"""The play socket's transport: the frames the server writes and reads, and one
connection's outbox, rate and back-pressure."""
