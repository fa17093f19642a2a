"""What the assistant does for people beside answering: leave requests with an approval gate
(:mod:`.leave`) and HR's step-by-step procedures (:mod:`.procedures`)."""
