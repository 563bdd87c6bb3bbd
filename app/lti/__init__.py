"""LTI 1.3: the course launched from a learning-management system (Canvas, Moodle, ...).

The tool is configured from a JSON file (:mod:`app.lti.config`), serves the OIDC login, the launch,
its public keys and a Canvas configuration over Tornado handlers beside Panel
(:mod:`app.lti.handlers`), verifies every launch as the LTI 1.3 core spec says
(:mod:`app.lti.verify`), carries the verified student or instructor into a Panel session by a
one-time launch code in the URL (:mod:`app.lti.launches`, :mod:`app.lti.pages`) and sends the grade
back (:mod:`app.lti.grades`). JWTs and keys go through PyJWT with ``cryptography``: no
cryptography is written here. docs/lti.md says why each choice was made.
"""

from __future__ import annotations

CONFIG_ENV = "LTI_CONFIG"
"""The environment variable that names the tool's JSON configuration (``--lti-config`` overrides it)."""

LTI_PREFIX = "/lti/"
"""Every LTI address starts with it (the framing rules name it, :mod:`app.web.frame_headers`)."""

LTI_LESSON = "/lti/lesson"
"""A Learner's launched exercise: ``/lti/lesson?id=<lesson>&code=…``. The ``id`` names the page kind whose
cached HTML answers the request (:func:`app.site.sessions.page_key`): its title and first heading."""

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
DL_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
ROSTER_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
LEARNER_ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"

RESOURCE_LINK = "LtiResourceLinkRequest"
DEEP_LINKING = "LtiDeepLinkingRequest"
VERSION = "1.3.0"

INSTRUCTOR_ROLES = frozenset(
    {
        "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
        "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant",
    }
)
"""The LIS context (membership) role URIs that open the context's instructor view; a Learner's never do.

Only roles in the launch's context count: an institution role (``.../institution/person#Instructor``,
which Canvas sends for anyone who teaches anywhere) does not make a student of this course its
instructor.
"""
