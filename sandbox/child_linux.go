package sandbox

import "transitbench/sandbox/internal/jail"

func childMain() { jail.Main() }
