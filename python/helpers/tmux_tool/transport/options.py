"""Every tmux user option the tool keeps, named once.

The tool's memory between calls lives in tmux itself (Agent Zero may build a
new tool object per call, and the command line is a new process each time),
in user options that all begin with ``@tmux_tool_``, so ``tmux show-options``
shows at a glance what is the tool's, and nothing of the human's is touched.
Each line says where the option lives (``-p`` pane, else session) and what
it holds; the module that writes it explains its shape.
"""

from __future__ import annotations

PREFIX = "@tmux_tool_"

# The human's session: the records of the judge and the sender (shared/records.py, shared/where.py).
PROMPTS = PREFIX + "prompt"  # -p: learned prompt pattern per shell pid
SENT = PREFIX + "sent"  # -p: what the tool last typed into the pane
OWNED = PREFIX + "owned"  # -p: process groups the tool's commands started
UPPER = PREFIX + "upper"  # -p: proven upper rows of each shell's prompt
BOUND = PREFIX + "pane"  # the pane of the agent's last command

# The human's session: the human's controls and what the page shows (shared/control.py).
PAUSED = PREFIX + "paused"
APPROVE = PREFIX + "approve"
ACTIVITY = PREFIX + "activity"
PENDING = PREFIX + "pending"
APPROVAL = PREFIX + "approval"
AUDIT = PREFIX + "audit"
ACTIVITY_LINE = PREFIX + "activity_line"

# The human's hand (judgement/human.py, the page's server, agent.sh).
PAGE = PREFIX + "page"  # global, on the shared server: the page's address while it serves
# on a private session: who of the humans holds it (page, page:secret, agent.sh)
HELD = PREFIX + "human"
# on a private session: the option the human chose from the page (sessions/tap.py)
ANSWERED = PREFIX + "answered"

# The agent's private sessions (private/server.py, private/runs.py, drive/turns.py).
PROGRAM = PREFIX + "program"  # the program started in the session, or bash
CREATED = PREFIX + "created"  # when the session was made (epoch seconds)
RUN = PREFIX + "run"  # the run last submitted (JSON)
COLLECTED = PREFIX + "collected"  # the id of the last run whose result was delivered
TURNS = PREFIX + "turns"  # prompts ask has sent
TURN_OPEN = PREFIX + "turn_open"  # "1" while the last turn's answer has not been returned
ASKED = PREFIX + "asked"  # the last prompt, shortened
# "1" once the CLI's own record showed the last turn started
TURN_RECORDED = PREFIX + "turn_recorded"

# The ssh connection to a host, in a session of the agent's own server (transport/hosts.py).
CONNECTION = PREFIX + "connection"  # the host whose ssh master runs in the session
