module reducerkit/compat

go 1.24.4

require github.com/tmc/langchaingo v0.1.14

require (
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/pkoukk/tiktoken-go v0.1.6 // indirect
)
