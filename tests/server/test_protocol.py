"""The wire protocol: every input decodes to a message or a clear error; never raises."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from nertz.server.protocol import (
    CLIENT_TYPES,
    MAX_MESSAGE_BYTES,
    Ack,
    Hello,
    Play,
    ProtocolError,
    Refused,
    decode_client,
    encode,
)


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
