"""What every device does (docs/serial-protocol.md, "What a device must do").

``Device`` numbers the frames it sends, keeps the last ``ring`` of them, says hello at
boot, answers the companion's ``GET what=snapshot`` and ``REPLAY from=N``, and sends a
heartbeat after a second of silence. It never touches a pin or a port: every method
takes the time in milliseconds since boot and returns the bytes to write, in order.
"""

from firmware.common.wire import SEQ_MODULUS, Reader, encode

PROTO = 1
FW_VERSION = "1.0"
RING = 64  # frames kept for REPLAY (the protocol recommends 64)
HEARTBEAT_MS = 1000
UP_MODULUS = 1 << 32  # `up` wraps at 2^32


def is_boot_id(text):
    """8 hexadecimal digits (capitals, as the protocol page writes them)."""
    return len(text) == 8 and all(c in "0123456789ABCDEF" for c in text)


class Device:
    """The protocol half of a device. ``snapshot`` is a function returning the device's
    snapshot as ``(type, fields)``; ``boot_id`` is 8 hexadecimal digits drawn anew at
    every boot (``main.py`` draws them from the hardware's random generator)."""

    def __init__(self, kind, serial, boot_id, snapshot, fw=FW_VERSION, ring=RING):
        if not is_boot_id(boot_id):
            raise ValueError("a boot id is 8 capital hexadecimal digits: " + repr(boot_id))
        self.kind = kind
        self.serial = serial
        self.boot_id = boot_id
        self.snapshot = snapshot
        self.fw = fw
        self.ring_size = ring
        self.ring = []  # (seq, bytes) in the order first sent
        self.seq = 0
        self.reader = Reader()
        self.booted_at = None
        self.last_sent = 0

    # -- sending ------------------------------------------------------------------------

    def boot(self, now):
        """The boot: sequence numbers from 0, an empty ring, the hello first."""
        self.booted_at = now
        self.seq = 0
        self.ring = []
        return [self.hello(now)]

    def hello(self, now):
        fields = (
            ("proto", PROTO),
            ("kind", self.kind),
            ("serial", self.serial),
            ("boot", self.boot_id),
            ("fw", self.fw),
        )
        return self.send("HELLO", fields, now)

    def send(self, type_, fields, now):
        """One frame with the next sequence number, kept in the ring."""
        if self.booted_at is None:
            raise RuntimeError("boot() first: the hello is the first frame")
        raw = encode(self.seq, type_, fields)
        self.ring.append((self.seq, raw))
        if len(self.ring) > self.ring_size:
            self.ring.pop(0)
        self.seq = (self.seq + 1) % SEQ_MODULUS
        self.last_sent = now
        return raw

    def send_snapshot(self, now):
        type_, fields = self.snapshot()
        return self.send(type_, fields, now)

    def tick(self, now):
        """The heartbeat, when nothing was sent for a second."""
        if self.booted_at is not None and now - self.last_sent >= HEARTBEAT_MS:
            return [self.send("HB", (("up", (now - self.booted_at) % UP_MODULUS),), now)]
        return []

    # -- answering ----------------------------------------------------------------------

    def receive(self, data, now):
        """Bytes from the companion; what to send in answer. Frames with a bad CRC are
        ignored, and so is a GET for anything but a snapshot."""
        out = []
        for _seq, type_, fields in self.reader.feed(data):
            if type_ == "GET" and fields.get("what") == "snapshot":
                out.append(self.hello(now))
                out.append(self.send_snapshot(now))
            elif type_ == "REPLAY":
                out.extend(self.replay(fields.get("from"), now))
        return out

    def replay(self, start, now):
        """Every kept frame from number ``start`` on, unchanged and in the order first
        sent; when ``start`` is not kept, ``GAP first=start last=<last sent>`` and the
        snapshot. A REPLAY without a number is ignored."""
        if start is None or not start.isdigit() or int(start) >= SEQ_MODULUS:
            return []
        wanted = int(start)
        for index in range(len(self.ring) - 1, -1, -1):  # the newest with that number
            if self.ring[index][0] == wanted:
                self.last_sent = now  # a replayed frame counts as sent
                return [raw for _seq, raw in self.ring[index:]]
        last = (self.seq - 1) % SEQ_MODULUS
        return [
            self.send("GAP", (("first", wanted), ("last", last)), now),
            self.send_snapshot(now),
        ]
