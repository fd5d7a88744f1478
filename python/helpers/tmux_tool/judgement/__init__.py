"""A session's judged state with its evidence, and the one rule for when a judgement may be
trusted."""
