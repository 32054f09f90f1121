"""The MQTT client both ends use: paho-mqtt (MQTT 3.1.1), QoS 1, a persistent session
(``clean_session=False``: the broker keeps the client's subscriptions and queues its QoS 1
messages while it is away), automatic reconnection.

Broker addresses are URLs: ``mqtt://HOST:PORT`` (default port 1883) or ``mqtts://HOST:PORT``
(TLS, default 8883, checked against the hall's CA certificate).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from companion.errors import CompanionError


class BrokerURLError(CompanionError, ValueError):
    """A broker URL that cannot be used: names it and what is accepted."""


@dataclass(frozen=True)
class BrokerURL:
    """A parsed broker address."""

    host: str
    port: int
    tls: bool = False

    def __str__(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def parse_url(text: str, where: str = "--broker") -> BrokerURL:
    """``mqtt://HOST[:PORT]`` or ``mqtts://HOST[:PORT]``.

    Raises:
        BrokerURLError: another scheme, no host, a bad port.
    """
    accepted = "accepted mqtt://HOST:PORT or mqtts://HOST:PORT (TLS)"
    try:
        parts = urlsplit(str(text))
        port = parts.port
    except ValueError as exc:
        raise BrokerURLError(f"{where} {text!r}: {exc}; {accepted}") from None
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise BrokerURLError(f"{where} {text!r}: {accepted}")
    tls = parts.scheme == "mqtts"
    return BrokerURL(parts.hostname, port or (8883 if tls else 1883), tls)


def make_client(
    client_id: str,
    username: str | None,
    password: str | None,
    url: BrokerURL,
    ca: Path | None = None,
    will: tuple[str, bytes] | None = None,
    clean: bool = False,
):
    """A paho-mqtt client, set up but not connected.

    Args:
        client_id: the session's id (the broker keeps the session under it).
        username, password: the account.
        url: the broker.
        ca: the hall's CA certificate (PEM) for ``mqtts``.
        will: ``(topic, payload)`` the broker publishes (retained, QoS 1) if the client drops.
        clean: a clean session (nothing kept by the broker; for short commands).

    Raises:
        BrokerURLError: ``mqtts`` without a CA file that exists.
    """
    import paho.mqtt.client as mqtt

    client = mqtt.Client(
        mqtt.CallbackAPIVersion.VERSION2,
        client_id=client_id,
        clean_session=clean,
        protocol=mqtt.MQTTv311,
    )
    if username:
        client.username_pw_set(username, password)
    if url.tls:
        if ca is None or not Path(ca).exists():
            raise BrokerURLError(
                f"{url}: TLS needs the hall's CA certificate (companion director ca); "
                f"not found: {ca}"
            )
        client.tls_set(ca_certs=str(ca))
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    client.reconnect_delay_set(min_delay=0.2, max_delay=2)
    client.max_inflight_messages_set(100)
    client.max_queued_messages_set(0)
    return client


def connect(
    url: BrokerURL,
    username: str | None,
    password: str | None,
    client_id: str,
    ca: Path | None = None,
    timeout: float = 5.0,
    clean: bool = True,
):
    """A connected paho client with its network loop running (for short commands).

    Raises:
        BrokerURLError: no broker answered, or it refused the login, within ``timeout``.
    """
    import threading

    client = make_client(client_id, username, password, url, ca, clean=clean)
    done = threading.Event()
    answer: list = []

    def on_connect(c, userdata, flags, reason_code, properties=None):
        answer.append(reason_code)
        done.set()

    client.on_connect = on_connect
    try:
        client.connect(url.host, url.port, keepalive=10)
    except OSError as exc:
        raise BrokerURLError(f"no broker at {url}: {exc.strerror or exc}") from None
    client.loop_start()
    if not done.wait(timeout) or answer[0].is_failure:
        client.loop_stop()
        client.disconnect()
        why = str(answer[0]) if answer else "no answer"
        raise BrokerURLError(f"the broker at {url} did not accept {username!r}: {why}")
    return client


def check_login(
    url: BrokerURL, username: str, password: str, timeout: float = 5.0, ca: Path | None = None
) -> None:
    """Wait until ``username`` can log in (a new account after the broker's reload).

    Raises:
        BrokerURLError: still refused after ``timeout`` seconds.
    """
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            client = connect(url, username, password, f"check-{username}", ca, timeout=2.0)
        except BrokerURLError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.05)
            continue
        client.disconnect()
        client.loop_stop()
        return
