"""The wire protocol: every input decodes to a message or a clear error; never raises."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import msgspec
import msgspec.inspect
from hypothesis import given, settings
from hypothesis import strategies as st

from nertz.server.protocol import (
    CLIENT_TYPES,
    MAX_MESSAGE_BYTES,
    Ack,
    EventMsg,
    Hello,
    MovedEvent,
    Play,
    ProtocolError,
    Refused,
    SeatEvent,
    ServerMessage,
    TableEvent,
    decode_client,
    encode,
)

PROTOCOL_MD = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def test_good_messages_decode() -> None:
    assert decode_client('{"type": "play", "seq": 3, "move": "N>F"}') == Play(3, "N>F")
    hello = decode_client(b'{"type": "hello", "table": "ABC234", "token": "t"}')
    assert hello == Hello("ABC234", "t")
    assert isinstance(hello, Hello) and hello.last_version == -1


def test_bad_messages_name_what_is_wrong() -> None:
    cases = {
        "{": ("bad_json", "JSON"),
        '{"type": "jump"}': ("unknown_type", "types are: " + ", ".join(CLIENT_TYPES)),
        '{"seq": 1}': ("unknown_type", "missing"),
        '{"type": "play", "seq": "1", "move": "T"}': ("bad_field", "$.seq"),
        '{"type": "play", "seq": 1}': ("bad_field", "move"),
        '{"type": "play", "seq": 1, "move": "T", "seat": 1}': ("bad_field", "seat"),
        '{"type": "play", "seq": -2, "move": "T"}': ("bad_field", ">= 0"),
        '{"type": "hello", "table": "' + "x" * 80 + '"}': ("bad_field", "length"),
        "x" * (MAX_MESSAGE_BYTES + 1): ("too_big", "4096"),
    }
    for text, (code, words) in cases.items():
        error = decode_client(text)
        assert isinstance(error, ProtocolError), text
        assert error.code == code and words in error.reason, (text, error)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
            lambda inner: (
                st.lists(inner, max_size=4)
                | st.dictionaries(st.sampled_from(["type", "seq", "move", "table"]), inner)
            ),
            max_leaves=12,
        ).map(json.dumps),
    )
)
def test_decoding_never_raises(data: bytes | str) -> None:
    result = decode_client(data)
    if isinstance(result, ProtocolError):
        assert result.code and result.reason.strip()


def test_server_messages_encode_compactly() -> None:
    assert encode(Refused(2, "beaten", "too late")) == (
        b'{"type":"refused","seq":2,"code":"beaten","reason":"too late"}'
    )
    assert encode(Ack(1, 5)) == b'{"type":"ack","seq":1,"v":5}'  # no events: omitted


def test_events_keep_their_wire_shape() -> None:
    """A null is sent as null; ``partner`` and a joker's ``as`` only where they apply
    (the browser client reads these bytes)."""
    seat = EventMsg(3, SeatEvent(seat=1, name=None, bot=None))
    assert (
        encode(seat) == b'{"type":"event","v":3,"e":{"k":"seat","seat":1,"name":null,"bot":null}}'
    )
    pair = SeatEvent(seat=1, partner=0, name="Ann", bot=None)
    assert encode(pair) == b'{"k":"seat","seat":1,"partner":0,"name":"Ann","bot":null}'
    moved = MovedEvent(seat=0, move="N>F", cards=["AH"], foundation=None, tie=False, revealed=None)
    assert b'"foundation":null,"tie":false,"revealed":null}' in encode(moved)
    joker = MovedEvent(
        seat=0, move="N>F1=2H", cards=["JK1"], foundation=1, tie=False, revealed="9S", as_="2H"
    )
    assert encode(joker).endswith(b'"revealed":"9S","as":"2H"}')


def _tag(kind: type) -> str:
    info = msgspec.inspect.type_info(kind)
    assert isinstance(info, msgspec.inspect.StructType) and isinstance(info.tag, str)
    return info.tag


def test_every_server_message_and_event_is_in_the_protocol_document() -> None:
    doc = PROTOCOL_MD.read_text()
    for kind in typing.get_args(ServerMessage):
        assert f'`{{"type": "{_tag(kind)}"' in doc, f"message {_tag(kind)!r} is not documented"
    events = doc.split("### Events", 1)[1].split("\n### ", 1)[0]
    partnered = re.search(
        r"At a partnership table \(R40\) (.*?) also carry `partner`", events, re.S
    )
    assert partnered is not None
    for kind in typing.get_args(TableEvent):
        tag = _tag(kind)
        row = re.search(rf"^\| `{tag}` \| (.*)$", events, re.M)
        assert row is not None, f"event {tag!r} is not in docs/protocol.md's table of events"
        info = msgspec.inspect.type_info(kind)
        assert isinstance(info, msgspec.inspect.StructType)
        for field in info.fields:
            if field.encode_name == "partner":
                assert f"`{tag}`" in partnered.group(1), f"{tag!r}: partner is not documented"
            else:
                assert f"`{field.encode_name}`" in row.group(1), f"{tag!r}: {field.encode_name}"
