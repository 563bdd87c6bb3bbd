"""``python -m app lti-keys DIR``: make the tool's RSA key pair (``private.pem``, ``public.pem``).

The same as ``openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out private.pem`` and
``openssl rsa -in private.pem -pubout -out public.pem``. The private key is written readable by its
owner alone, and an existing key is never overwritten.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from app.lti.config import key_id

KEY_BITS = 2048
"""The key size: what LMSs expect for RS256."""


def make_key_pair(folder: str | Path) -> tuple[Path, Path]:
    """Write a new RSA key pair into ``folder`` (made if missing).

    Parameters
    ----------
    folder : str or Path
        Where ``private.pem`` (mode 600) and ``public.pem`` go.

    Returns
    -------
    (Path, Path)
        The private and the public key's files.

    Raises
    ------
    FileExistsError
        If either file is already there.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    private_path, public_path = folder / "private.pem", folder / "public.pem"
    for path in (private_path, public_path):
        if path.exists():
            raise FileExistsError(f"{path} exists; remove it or choose another folder")
    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    descriptor = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as sink:
        sink.write(private)
    public_path.write_bytes(public)
    return private_path, public_path


def main(argv: list[str]) -> None:
    """Run ``python -m app lti-keys DIR``; one line on success or on failure (exit status 2)."""
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.exit("usage: python -m app lti-keys DIR   (writes DIR/private.pem and DIR/public.pem)")
    try:
        private_path, public_path = make_key_pair(argv[0])
    except (FileExistsError, OSError) as error:
        sys.exit(f"Cannot make the keys: {error}")
    public_key = serialization.load_pem_public_key(public_path.read_bytes())
    print(f"Wrote {private_path} (keep it secret) and {public_path} (kid {key_id(public_key)}).")
