package main

import "errors"

// errNoVerdict: the component answered a variant with no case set.
var errNoVerdict = errors.New("the component's answer has no case set")
