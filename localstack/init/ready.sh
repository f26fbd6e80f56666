#!/bin/sh
# LocalStack runs this once its services are ready. DocRender creates its own
# tables, bucket and queues from serverless.yml when it starts
# (`npm run start:localstack`), so nothing is created here; this only marks
# readiness in the container log.
echo "docrender: LocalStack ready (dynamodb, s3, sqs)"
